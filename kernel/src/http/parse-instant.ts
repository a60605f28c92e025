import { coreErrors } from '../errors/index.js';

/** ISO 8601 date or date-time (with optional offset), as `parseInstant` accepts: a query schema's pattern. */
export const ISO_8601_PATTERN = '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$';

/**
 * An ISO 8601 date or date-time query value as an instant; a bare date is the start (or end) of
 * that UTC day, and a time without an offset is UTC. Throws 400 `validation_error` naming
 * `query.<field>` for an impossible date (2026-02-31).
 */
export function parseInstant(value: string, field: string, edge: 'start' | 'end'): Date {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  // Without an offset the time is UTC, never the server's local zone.
  const text = dateOnly ? `${value}T00:00:00.000Z` : /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`;
  const parsed = new Date(text);
  // Date rolls 2026-02-31 over to March, with or without a time; a real calendar day reads back the same.
  const day = value.slice(0, 10);
  const calendarDay = new Date(`${day}T00:00:00.000Z`);
  if (Number.isNaN(parsed.getTime()) || Number.isNaN(calendarDay.getTime()) || calendarDay.toISOString().slice(0, 10) !== day)
    throw coreErrors.validation_error({ message: `query.${field} is not a valid ISO 8601 date or date-time`, details: { field: `query.${field}` } });
  if (dateOnly && edge === 'end') return new Date(parsed.getTime() + 86_400_000 - 1);
  return parsed;
}

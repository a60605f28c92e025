import { coreErrors, ISO_8601_PATTERN, parseInstant } from '@gw/kernel';
import type { MoneyOutRange } from './money-out.js';

const ISO_8601 = new RegExp(ISO_8601_PATTERN);

/**
 * The period of the accounting export from its edge texts (ISO 8601 dates or date-times, UTC
 * without an offset): from `from` included to `to` excluded, so consecutive periods never count a
 * row twice. Bad input is 400 `validation_error` naming the field.
 */
export function moneyOutRange(projectId: string, from: string, to: string): MoneyOutRange {
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!ISO_8601.test(value))
      throw coreErrors.validation_error({ message: `${field} must be an ISO 8601 date or date-time.`, details: { field: `query.${field}` } });
  }
  const range = { projectId, from: parseInstant(from, 'from', 'start'), to: parseInstant(to, 'to', 'start') };
  if (range.from > range.to) throw coreErrors.validation_error({ message: 'from is after to.', details: { field: 'query.from' } });
  return range;
}

/** The current calendar month (UTC) as the texts of a range: the dashboard's default period. */
export function thisMonth(now = new Date()): { from: string; to: string } {
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { from: from.toISOString().slice(0, 10), to: to.toISOString().slice(0, 10) };
}

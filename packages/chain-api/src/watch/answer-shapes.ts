/**
 * Predicates for checking a provider's answer field by field (with {@link expectShape}): what the
 * watchers and treasuries of every chain ask of the JSON they are given.
 */

/** A JSON object with fields: not null, not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A count, a height or an index: a non-negative safe integer. */
export function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

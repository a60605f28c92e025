import { parseUnits } from './decimal-units.js';

/**
 * A row as services see it: the named base-units columns, which pg returns as text (`numeric`),
 * read as bigint, in place (a null stays null, a column the query did not select stays absent).
 * The one place base units become bigint: call it where rows are read (a model's
 * `$parseDatabaseJson`, a plain-SQL reader), so no service parses them again.
 */
export function withUnitsColumns<T>(row: object, columns: readonly string[]): T {
  const record = row as Record<string, unknown>;
  for (const column of columns) {
    const value = record[column];
    if (typeof value === 'string') record[column] = parseUnits(value);
  }
  return row as T;
}

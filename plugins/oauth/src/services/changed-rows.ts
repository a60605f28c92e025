import { type Sql, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';

/**
 * Runs one `update`/`delete ... returning 1` statement (on the pool or in `db`'s transaction) and
 * returns how many rows it changed, counted in the database (no row travels back).
 */
export async function changedRows(db: Knex | Knex.Transaction, statement: Sql): Promise<number> {
  const [row] = await sqlQuery<{ n: number }>(db, sql`with changed as (${statement}) select count(*)::int as n from changed`);
  return row?.n ?? 0;
}

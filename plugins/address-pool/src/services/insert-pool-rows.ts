import { jsonRecords, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { PoolAddress } from '../models/pool-address.js';

/**
 * Inserts freshly derived pool rows ({@link deriveRows}) in one statement, whatever their number
 * (the rows travel as one JSON parameter, so PostgreSQL's bind-parameter limit does not apply).
 * A row whose id or `(wallet_id, derivation_index)` exists already is skipped: a concurrent
 * growth that derived the same index first wins, and the caller reads what is there.
 */
export async function insertPoolRows(trx: Knex.Transaction, rows: readonly Partial<PoolAddress>[]): Promise<void> {
  if (rows.length === 0) return;
  await sqlQuery(
    trx,
    sql`insert into address_pool_addresses (id, project_id, chain, wallet_id, derivation_index, address, derivation_path, state, activated)
        select r.id, r.project_id, r.chain, r.wallet_id, r.derivation_index, r.address, r.derivation_path, r.state, r.activated
          from ${jsonRecords(rows)} as r(id text, project_id text, chain text, wallet_id text, derivation_index integer, address text, derivation_path text, state text, activated boolean)
        on conflict do nothing`,
  );
}

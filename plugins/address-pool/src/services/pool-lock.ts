import { sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';

/**
 * Serialises the growth of one pool across every process (a transaction advisory lock keyed by
 * the wallet binding): the replenisher and a growth on the request path derive the next indexes
 * under it. Allocation of existing rows does not take it: allocations lock rows with SKIP LOCKED.
 */
export async function lockPool(trx: Knex.Transaction, walletId: string): Promise<void> {
  await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${poolLockKey(walletId)}, 0))`);
}

/** `lockPool` without waiting: false when another transaction holds the pool's lock. */
export async function tryLockPool(trx: Knex.Transaction, walletId: string): Promise<boolean> {
  const [result] = await sqlQuery<{ ok: boolean }>(trx, sql`select pg_try_advisory_xact_lock(hashtextextended(${poolLockKey(walletId)}, 0)) as ok`);
  return result!.ok;
}

function poolLockKey(walletId: string): string {
  return `address-pool:${walletId}`;
}

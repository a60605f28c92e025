import type { Knex } from 'knex';

/**
 * Serialises replenishment of one pool across every process (a transaction advisory lock keyed by
 * the wallet binding). Allocation does not take it: allocations lock rows with SKIP LOCKED.
 */
export async function lockPool(trx: Knex.Transaction, walletId: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`address-pool:${walletId}`]);
}

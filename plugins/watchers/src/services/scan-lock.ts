import { sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import { watchersErrors } from '../errors.js';

/** How long an operator's command waits for a network's scan pass to let go of the network. */
export const SCAN_LOCK_WAIT_MS = 5000;

/**
 * Takes the scan lock of `chain`/`network` (the advisory lock a scan pass holds for its whole
 * transaction) for the rest of `trx`, waiting at most `waitMs`; while a pass still holds it then,
 * throws `network_scan_busy` (503, Retry-After) instead of waiting on: a pass whose providers are
 * paced may hold it for `pacedPassSeconds` and more, and an operator's request should not hang
 * that long. The transaction is then aborted (the caller's rolls back). Only for requests: the
 * scanner's own steps wait as long as it takes.
 */
export async function scanLockWithin(trx: Knex.Transaction, chain: string, network: string, waitMs: number = SCAN_LOCK_WAIT_MS): Promise<void> {
  const [before] = await sqlQuery<{ lock_timeout: string }>(trx, sql`select current_setting('lock_timeout') as lock_timeout`);
  await sqlQuery(trx, sql`select set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)`);
  try {
    await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`watchers:${chain}:${network}`}, 0))`);
  } catch (error) {
    if ((error as { code?: string }).code === '55P03') {
      throw watchersErrors.network_scan_busy({
        message: `A scan pass of ${chain} ${network} holds the network (its providers are paced, so a pass may take a minute or more); retry after the delay in Retry-After.`,
        details: { chain, network },
      });
    }
    throw error;
  }
  // The rest of the transaction waits for row locks as it would have.
  await sqlQuery(trx, sql`select set_config('lock_timeout', ${before!.lock_timeout}, true)`);
}

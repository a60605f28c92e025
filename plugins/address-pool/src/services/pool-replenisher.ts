import { maxAddressIndexOf, sql, sqlIdentifier, sqlQuery, type ChainId, type ChainRegistry, type Cradle } from '@gw/kernel';
import type { VerifiedWallet, WalletService } from '@gw/plugin-wallets/contract';
import type { Knex } from 'knex';
import type { AddressPoolConfig } from '../config.js';
import { PoolAddress } from '../models/pool-address.js';
import { deriveRows } from './derive-rows.js';
import { insertPoolRows } from './insert-pool-rows.js';
import { lockPool } from './pool-lock.js';

/** How many times the last minute's allocations the free buffer holds when that exceeds targetFree. */
const BURST_FACTOR = 10;

const ANALYZE_AFTER_ROWS = 100;

/** What one replenish run did to one pool. */
export interface ReplenishReport {
  readonly projectId: string;
  readonly chain: ChainId;
  readonly walletId: string;
  /** Cooled-down rows made available again. */
  readonly recycled: number;
  /** Rows derived and inserted. */
  readonly derived: number;
  /** Free rows after the run. */
  readonly free: number;
  readonly total: number;
}

/**
 * Keeps every verified wallet's pool `targetFree` addresses ahead of demand: recycles rows whose
 * cooldown is over, then derives the next indexes (never past the hard cap or the chain's highest
 * index). Runs in the `address-pool.replenish` job; the request path grows a pool itself only
 * when it found nothing free (`AddressPoolService.allocate`).
 */
export class PoolReplenisher {
  constructor(
    private readonly deps: {
      db: Knex;
      chains: ChainRegistry;
      logger: Cradle['logger'];
      walletsWallets: WalletService;
      addressPoolConfig: AddressPoolConfig;
    },
  ) {}

  /** Replenishes every verified pool, or only the named one. */
  async replenish(filter: { projectId?: string; chain?: ChainId } = {}): Promise<ReplenishReport[]> {
    const wallets = await this.deps.walletsWallets.listVerified(filter);
    const reports: ReplenishReport[] = [];
    const failures: unknown[] = [];
    for (const wallet of wallets) {
      try {
        reports.push(await this.replenishWallet(wallet));
      } catch (error) {
        // One broken pool must not starve the others; the run still fails afterwards so pg-boss
        // records and retries it.
        this.deps.logger.error({ err: error, projectId: wallet.projectId, chain: wallet.chain }, 'address pool replenish failed');
        failures.push(error);
      }
    }
    // Allocation takes the lowest free index with an ordered index scan; planner statistics from
    // before a bulk insert make it sort every free row instead (milliseconds per invoice at
    // thousands of rows), so fresh statistics follow every run that added rows.
    if (reports.some((r) => r.derived >= ANALYZE_AFTER_ROWS)) await sqlQuery(this.deps.db, sql`analyze ${sqlIdentifier(PoolAddress.tableName)}`);
    if (failures.length > 0) throw new AggregateError(failures, `${failures.length} address pool(s) failed to replenish`);
    return reports;
  }

  private async replenishWallet(wallet: VerifiedWallet): Promise<ReplenishReport> {
    const adapter = this.deps.chains.get(wallet.chain);
    const config = this.deps.addressPoolConfig;
    const highestIndex = maxAddressIndexOf(adapter.definition);
    return this.deps.db.transaction(async (trx) => {
      await lockPool(trx, wallet.id);
      const recycled = await PoolAddress.query(trx)
        .where({ wallet_id: wallet.id, state: 'cooldown' })
        .where('cooldown_until', '<=', trx.fn.now())
        .patch({ state: 'available', cooldown_until: null });
      const [stats] = (await sqlQuery<{ free: number; total: number; highest: number; recent: number }>(
        trx,
        sql`select count(*) filter (where state = 'available')::int as free,
                   count(*)::int as total,
                   coalesce(max(derivation_index), -1)::int as highest,
                   count(*) filter (where allocated_at > now() - interval '1 minute')::int as recent
              from address_pool_addresses
             where wallet_id = ${wallet.id}`,
      )) as [{ free: number; total: number; highest: number; recent: number }];
      // The hard cap bounds how many rows a pool has; the chain bounds the index (TON: 32767).
      // The buffer follows demand: ten times the last minute's allocations when that is more than
      // targetFree, so the refill keeps ahead of a burst (growOnRequest covers the rest).
      const target = Math.max(config.targetFree, BURST_FACTOR * stats.recent);
      const wanted = Math.max(0, Math.min(target - stats.free, config.hardCap - stats.total, config.replenishBatchMax, highestIndex - stats.highest));
      const rows = deriveRows(adapter, wallet, stats.highest + 1, wanted);
      await insertPoolRows(trx, rows);
      return {
        projectId: wallet.projectId,
        chain: wallet.chain,
        walletId: wallet.id,
        recycled,
        derived: rows.length,
        free: stats.free + rows.length,
        total: stats.total + rows.length,
      };
    });
  }
}

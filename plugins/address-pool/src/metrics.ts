import { Counter, Gauge, type Registry } from 'prom-client';
import type { Cradle } from '@gw/kernel';
import type { AllocationMode } from './services/address-pool-service.js';
import type { PoolStatus, PoolStatusService } from './services/pool-status.js';

/**
 * `gateway_address_pool_allocations_total{chain,mode}`: allocations by this process, fresh or
 * overlay (a rising overlay share means the pool is saturated).
 */
export function createAllocationCounter(registry: Registry): Counter<'chain' | 'mode'> & { inc(labels: { chain: string; mode: AllocationMode }): void } {
  return new Counter({
    name: 'gateway_address_pool_allocations_total',
    help: 'Deposit address allocations by chain and mode (fresh or overlay).',
    labelNames: ['chain', 'mode'],
    registers: [registry],
  });
}

/**
 * `gateway_address_pool_gap_max{chain}`, `gateway_address_pool_free_min{chain}` and
 * `gateway_address_pool_free{chain}`: the worst pool and the total per chain, read from the
 * database at scrape time so every process reports the same truth (nothing kept in memory). Series
 * are per chain only, never per project: the number of series stays bounded however many projects
 * exist (issue 26 finding 5); `gateway pool status` names the pools. Gap: highest allocated index
 * minus highest index released after use or paid.
 */
export function registerPoolGauges(registry: Registry, deps: { addressPoolStatus: PoolStatusService; logger: Cradle['logger'] }): void {
  const gauge = (name: string, help: string, fold: (pools: readonly PoolStatus[]) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['chain'],
      registers: [registry],
      async collect() {
        this.reset();
        try {
          const byChain = new Map<string, PoolStatus[]>();
          for (const pool of await deps.addressPoolStatus.status({}, { listAwaitingActivation: false })) {
            byChain.set(pool.chain, [...(byChain.get(pool.chain) ?? []), pool]);
          }
          for (const [chain, pools] of byChain) this.set({ chain }, fold(pools));
        } catch (error) {
          deps.logger.warn({ err: error, metric: name }, 'address pool gauge unavailable');
        }
      },
    });
  gauge(
    'gateway_address_pool_gap_max',
    'Largest gap of any pool of the chain: highest allocated derivation index minus the highest index released after use or paid (BIP44 wallets stop scanning after 20 unused addresses).',
    (pools) => Math.max(...pools.map((pool) => pool.gap)),
  );
  gauge(
    'gateway_address_pool_gap_limit_applies',
    '1 when wallet software of the chain stops scanning after a gap of unused addresses (BIP44 gap limit 20), else 0: the gap alert applies only then.',
    (pools) => (pools.some((pool) => pool.gap_limit_applies) ? 1 : 0),
  );
  gauge('gateway_address_pool_free_min', 'Fewest free (available) addresses of any pool of the chain.', (pools) =>
    Math.min(...pools.map((pool) => pool.available)),
  );
  gauge('gateway_address_pool_free', 'Free (available) addresses of all pools of the chain.', (pools) => pools.reduce((sum, pool) => sum + pool.available, 0));
}

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
 * `gateway_address_pool_gap{project,chain}` and `gateway_address_pool_free{project,chain}`, read
 * from the database at scrape time so every process reports the same truth (nothing kept in
 * memory). Gap: highest allocated index minus highest index released after use or paid.
 */
export function registerPoolGauges(registry: Registry, deps: { addressPoolStatus: PoolStatusService; logger: Cradle['logger'] }): void {
  const gauge = (name: string, help: string, value: (pool: PoolStatus) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['project', 'chain'],
      registers: [registry],
      async collect() {
        this.reset();
        try {
          for (const pool of await deps.addressPoolStatus.status({}, { listAwaitingActivation: false })) {
            this.set({ project: pool.project_id, chain: pool.chain }, value(pool));
          }
        } catch (error) {
          deps.logger.warn({ err: error, metric: name }, 'address pool gauge unavailable');
        }
      },
    });
  gauge(
    'gateway_address_pool_gap',
    'Highest allocated derivation index minus the highest index released after use or paid, per pool (BIP44 wallets stop scanning after 20 unused addresses).',
    (pool) => pool.gap,
  );
  gauge('gateway_address_pool_free', 'Free (available) addresses per pool.', (pool) => pool.available);
}

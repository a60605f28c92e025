import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { POOLS_SECTION_DEPS, poolsSection } from './dashboard/pools-section.js';
import { WALLETS_PAGE_DEPS, walletsPage } from './dashboard/wallets-page.js';
import { ADDRESS_POOL_EXPORTS } from './contract.js';
import { WALLET_VERIFIED_CHANNEL, type WalletVerifiedNotice } from '@gw/plugin-wallets/contract';
import { m0001AddressPool } from '../migrations/0001_address_pool.js';
import { m0002FreeIndexOrdering } from '../migrations/0002_free_index_ordering.js';
import { m0003UnactivatedIndex } from '../migrations/0003_unactivated_index.js';
import { addressPoolCommands } from './cli.js';
import { AddressPoolConfigSchema } from './config.js';
import { addressPoolErrors } from './errors.js';
import { addressPoolJobs } from './jobs.js';
import { addressPoolReadiness } from './readiness.js';
import { createAllocationCounter, registerPoolGauges } from './metrics.js';
import { AddressPoolService } from './services/address-pool-service.js';
import { PoolReplenisher } from './services/pool-replenisher.js';
import { PoolStatusService } from './services/pool-status.js';

/**
 * Address pool: deposit addresses pre-derived from each verified wallet by the
 * `address-pool.replenish` job, allocated atomically in the caller's transaction (SKIP LOCKED),
 * released into a cooldown before reuse, shared in overlay mode when saturated, TRON activation,
 * and the gap gauge that warns before wallet software loses sight of funds.
 */
export const addressPoolPlugin = definePlugin({
  id: 'address-pool',
  dependsOn: ['tenancy', 'wallets'],
  exports: ADDRESS_POOL_EXPORTS,
  config: AddressPoolConfigSchema,
  errors: [addressPoolErrors],
  migrations: [m0001AddressPool, m0002FreeIndexOrdering, m0003UnactivatedIndex],
  register: ({ config }) => ({
    addressPoolConfig: serviceValue(config),
    addressPoolAllocations: service(['metrics'], ({ metrics }) => createAllocationCounter(metrics.registry)),
    addressPoolService: service(
      ['db', 'jobs', 'chains', 'audit', 'logger', 'walletsWallets', 'addressPoolConfig', 'addressPoolAllocations'],
      (deps) => new AddressPoolService(deps),
    ),
    addressPoolReplenisher: service(['db', 'chains', 'logger', 'walletsWallets', 'addressPoolConfig'], (deps) => new PoolReplenisher(deps)),
    addressPoolStatus: service(['db', 'chains', 'walletsWallets', 'addressPoolConfig'], (deps) => new PoolStatusService(deps)),
  }),
  // Its dashboard pages (ADR 0011).
  contributes: [pageSections(POOLS_SECTION_DEPS, [poolsSection]), dashboardPages(WALLETS_PAGE_DEPS, [walletsPage])],
  jobs: addressPoolJobs,
  cli: addressPoolCommands,
  readiness: addressPoolReadiness,
  start: withDeps(['metrics', 'logger', 'addressPoolStatus', 'addressPoolAllocations', 'kernelRole', 'notifications', 'addressPoolService'], async (deps) => {
    registerPoolGauges(deps.metrics.registry, deps);
    // Resolve eagerly so the counter is on /metrics before the first allocation.
    void deps.addressPoolAllocations;
    // A wallet verified on any instance gets its pool filled at once, not at the next minute's run
    // (a CLI process ends before a job would matter; the gateway and workers listen).
    if (deps.kernelRole !== 'cli') {
      await deps.notifications.subscribe(WALLET_VERIFIED_CHANNEL, {
        onNotification: (payload) => {
          const notice = JSON.parse(payload) as WalletVerifiedNotice;
          void deps.addressPoolService.requestReplenish(notice);
        },
      });
    }
  }),
});

export * from './contract.js';
export { addressPoolErrors } from './errors.js';
export { AddressPoolConfigSchema, type AddressPoolConfig } from './config.js';
export {
  AddressPoolService,
  type Allocation,
  type AllocationMode,
  type FreshPickGroup,
  type FreshPicks,
  type PickedAddress,
  type PickedGroup,
  type PoolAddressRef,
} from './services/address-pool-service.js';
export { PoolReplenisher, type ReplenishReport } from './services/pool-replenisher.js';
export { PoolStatusService, type PoolStatus } from './services/pool-status.js';
export { REPLENISH_JOB, type ReplenishJobData } from './job-names.js';

import { asFunction, asValue } from 'awilix';
import { watchersReadiness } from './readiness.js';
import { definePlugin, type Cradle } from '@gw/kernel';
import { m0001Watchers } from '../migrations/0001_watchers.js';
import { m0002Lifecycle } from '../migrations/0002_lifecycle.js';
import { WatchersConfigSchema, type WatchersConfig } from './config.js';
import { watchersErrors } from './errors.js';
import { sendScanPass, watchersJobs } from './jobs.js';
import { createWatcherMetrics, registerCursorGauges, type WatcherMetrics } from './metrics.js';
import { watchersRoutes } from './routes.js';
import { ChainScanner } from './services/chain-scanner.js';
import { ConfirmationCounter } from './services/confirmation-counter.js';
import { OrphanInbox } from './services/orphan-inbox.js';
import { PaymentMatcher } from './services/payment-matcher.js';
import { ReorgRewinder } from './services/reorg-rewinder.js';
import { WatcherRegistry } from './services/watcher-registry.js';
import { HeadPush } from './services/head-push.js';
import { WatcherStatusReads } from './services/watcher-status.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly watchersConfig: WatchersConfig;
    readonly watchersMetrics: WatcherMetrics;
    readonly watchersRegistry: WatcherRegistry;
    readonly watchersMatcher: PaymentMatcher;
    readonly watchersCounter: ConfirmationCounter;
    readonly watchersRewinder: ReorgRewinder;
    readonly watchersScanner: ChainScanner;
    readonly watchersOrphans: OrphanInbox;
    readonly watchersPush: HeadPush;
    /** Head, scanned height, lag, last pass and last error per configured chain network. */
    readonly watchersStatus: WatcherStatusReads;
  }
}

/**
 * On-chain observation (spec 1, 2.3, 3.1, 4.3, 6): one scanner per configured chain network reads
 * blocks through the chain's watcher, records transfers to pool addresses (unique per chain, tx and
 * output), matches them to invoices, counts confirmations, follows reorgs, and keeps the orphan
 * inbox. Every invoice change goes through the invoices' transition seam and the same outbox.
 */
export const watchersPlugin = definePlugin({
  id: 'watchers',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'invoices', 'webhooks'],
  config: WatchersConfigSchema,
  errors: [watchersErrors],
  migrations: [m0001Watchers, m0002Lifecycle],
  register: ({ config }) => ({
    watchersConfig: asValue(config),
    watchersMetrics: asFunction(({ metrics }: Cradle) => createWatcherMetrics(metrics.registry)).singleton(),
    watchersRegistry: asFunction((cradle: Cradle) => new WatcherRegistry(cradle)).singleton(),
    watchersMatcher: asFunction((cradle: Cradle) => new PaymentMatcher(cradle)).singleton(),
    watchersCounter: asFunction((cradle: Cradle) => new ConfirmationCounter(cradle)).singleton(),
    watchersRewinder: asFunction((cradle: Cradle) => new ReorgRewinder(cradle)).singleton(),
    watchersScanner: asFunction((cradle: Cradle) => new ChainScanner(cradle)).singleton(),
    watchersOrphans: asFunction((cradle: Cradle) => new OrphanInbox(cradle)).singleton(),
    watchersPush: asFunction((cradle: Cradle) => new HeadPush(cradle)).singleton(),
    watchersStatus: asFunction((cradle: Cradle) => new WatcherStatusReads(cradle)).singleton(),
  }),
  routes: watchersRoutes,
  jobs: watchersJobs,
  readiness: watchersReadiness,
  start: async (cradle) => {
    registerCursorGauges(cradle.metrics.registry, cradle);
    // Resolved eagerly so the counters are on /metrics before the first pass.
    void cradle.watchersMetrics;
    // Configuration mistakes (unknown chain or network) stop start-up here, naming the key.
    // An instance that runs jobs starts each network's loop now rather than at the next minute's
    // schedule (a CLI command or a gateway-only process leaves the loops alone).
    if (cradle.kernelRole === 'worker' || cradle.kernelRole === 'all') {
      for (const target of cradle.watchersRegistry.list()) await sendScanPass(cradle, target.adapter.definition.id, target.network);
      // Push beside the loop: a new head starts a pass at once (networks whose providers offer it).
      cradle.watchersPush.start();
    }
  },
  stop: async (cradle) => {
    if (cradle.kernelRole === 'worker' || cradle.kernelRole === 'all') await cradle.watchersPush.stop();
  },
});

export { watchersErrors } from './errors.js';
export { WatchersConfigSchema, type WatchersConfig } from './config.js';
export { SCAN_JOB, type ScanJobData } from './jobs.js';
export { ChainScanner, type ScanReport, type ScanTarget, type MempoolReport } from './services/chain-scanner.js';
export { PaymentMatcher, WATCHER_ACTOR, type MatchOutcome } from './services/payment-matcher.js';
export { OrphanInbox } from './services/orphan-inbox.js';
export { HeadPush } from './services/head-push.js';
export { WatcherStatusReads, type WatcherStatus } from './services/watcher-status.js';
export { PoolWatchedAddresses, projectKindOn } from './services/watched-addresses.js';
export * from './schemas.js';

import { watchersReadiness } from './readiness.js';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { STATUS_SECTION_DEPS, statusSection } from './dashboard/status-section.js';
import { ORPHANS_PAGE_DEPS, orphansPage } from './dashboard/orphans-page.js';
import { WATCHERS_PAGE_DEPS, watchersPage } from './dashboard/watchers-page.js';
import { watcherCommands } from './cli.js';
import { WATCHERS_EXPORTS } from './contract.js';
import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { m0001Watchers } from '../migrations/0001_watchers.js';
import { m0002Lifecycle } from '../migrations/0002_lifecycle.js';
import { m0003Dust } from '../migrations/0003_dust.js';
import { m0004Spends } from '../migrations/0004_spends.js';
import { m0005Quorum } from '../migrations/0005_quorum.js';
import { m0006ProviderBudgets } from '../migrations/0006_provider_budgets.js';
import { WatchersConfigSchema } from './config.js';
import { watchersErrors } from './errors.js';
import { sendScanPass, watchersJobs } from './jobs.js';
import { createWatcherMetrics, registerBudgetGauges, registerCursorGauges, registerQuorumGauges } from './metrics.js';
import { watchersRoutes } from './routes.js';
import { ActivationDetector } from './services/activation-detector.js';
import { ChainScanner } from './services/chain-scanner.js';
import { ConfirmationCounter } from './services/confirmation-counter.js';
import { OrphanInbox } from './services/orphan-inbox.js';
import { PaymentMatcher } from './services/payment-matcher.js';
import { ReorgRewinder } from './services/reorg-rewinder.js';
import { WatcherRegistry } from './services/watcher-registry.js';
import { ProviderBudgets } from './services/provider-budget.js';
import type { ProviderUsageReads } from './services/provider-usage.js';
import { HeadPush } from './services/head-push.js';
import { WatcherStatusReads } from './services/watcher-status.js';
import { ReceivedOutputsReads } from './services/received-outputs-reads.js';
import { QuorumVerifier } from './services/quorum-verifier.js';
import { Disagreements } from './services/disagreements.js';

/**
 * On-chain observation (spec 1, 2.3, 3.1, 4.3, 6): one scanner per configured chain network reads
 * blocks through the chain's watcher, records transfers to pool addresses (unique per chain, tx and
 * output), matches them to invoices, counts confirmations, follows reorgs, and keeps the orphan
 * inbox. Every invoice change goes through the invoices' transition seam and the same outbox.
 */
export const watchersPlugin = definePlugin({
  id: 'watchers',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'invoices', 'webhooks'],
  exports: WATCHERS_EXPORTS,
  config: WatchersConfigSchema,
  errors: [watchersErrors],
  migrations: [m0001Watchers, m0002Lifecycle, m0003Dust, m0004Spends, m0005Quorum, m0006ProviderBudgets],
  register: ({ config }) => ({
    watchersConfig: serviceValue(config),
    watchersMetrics: service(['metrics'], ({ metrics }) => createWatcherMetrics(metrics.registry)),
    // Its gauges are registered with it: the registry (resolved at start) gives it to every pool.
    watchersBudget: service(['db', 'logger', 'metrics', 'watchersConfig'], (deps) => {
      const budgets = new ProviderBudgets(deps);
      registerBudgetGauges(deps.metrics.registry, { usage: budgets, logger: deps.logger });
      return budgets;
    }),
    watchersProviderUsage: service(['watchersBudget'], ({ watchersBudget }): ProviderUsageReads => watchersBudget),
    watchersRegistry: service(
      ['chains', 'watchersConfig', 'watchersMetrics', 'addressPoolService', 'tenancyProjects', 'db', 'watchersBudget', 'invoicesLifecycle'],
      (deps) => new WatcherRegistry(deps),
    ),
    watchersMatcher: service(['invoicesLifecycle'], (deps) => new PaymentMatcher(deps)),
    watchersCounter: service(['invoicesLifecycle'], (deps) => new ConfirmationCounter(deps)),
    watchersRewinder: service(['invoicesLifecycle'], (deps) => new ReorgRewinder(deps)),
    watchersActivation: service(['logger', 'watchersConfig', 'addressPoolService', 'tenancyProjects'], (deps) => new ActivationDetector(deps)),
    watchersQuorum: service(
      ['logger', 'audit', 'watchersConfig', 'watchersMetrics', 'invoicesLifecycle', 'invoicesPolicies'],
      (deps) => new QuorumVerifier(deps),
    ),
    watchersDisagreements: service(['db', 'audit', 'watchersRegistry', 'watchersCounter', 'invoicesLifecycle'], (deps) => new Disagreements(deps)),
    watchersScanner: service(
      [
        'db',
        'logger',
        'watchersConfig',
        'watchersMetrics',
        'watchersMatcher',
        'watchersCounter',
        'watchersRewinder',
        'watchersActivation',
        'watchersQuorum',
        'invoicesLifecycle',
      ],
      (deps) => new ChainScanner(deps),
    ),
    watchersOrphans: service(['db', 'chains', 'invoicesAttribution', 'addressPoolService'], (deps) => new OrphanInbox(deps)),
    watchersPush: service(['db', 'logger', 'watchersConfig', 'watchersMetrics', 'watchersRegistry', 'watchersScanner'], (deps) => new HeadPush(deps)),
    watchersStatus: service(['db', 'watchersRegistry'], (deps) => new WatcherStatusReads(deps)),
    watchersOutputs: service(['db', 'watchersRegistry'], (deps) => new ReceivedOutputsReads(deps)),
  }),
  // Its dashboard pages (ADR 0011).
  contributes: [
    pageSections(STATUS_SECTION_DEPS, [statusSection]),
    dashboardPages(ORPHANS_PAGE_DEPS, [orphansPage]),
    dashboardPages(WATCHERS_PAGE_DEPS, [watchersPage]),
  ],
  routes: watchersRoutes,
  cli: watcherCommands,
  jobs: watchersJobs,
  readiness: watchersReadiness,
  start: withDeps(['metrics', 'db', 'logger', 'jobs', 'watchersMetrics', 'kernelRole', 'watchersRegistry', 'watchersPush'], async (deps) => {
    registerCursorGauges(deps.metrics.registry, deps);
    registerQuorumGauges(deps.metrics.registry, {
      ...deps,
      networks: () =>
        deps.watchersRegistry.list().map((target) => ({
          chain: target.adapter.definition.id,
          network: target.network,
          quorum: target.quorum ?? 1,
          providers: (target.attestors ?? []).map((a) => a.endpoint.name),
        })),
    });
    // Resolved eagerly so the counters are on /metrics before the first pass.
    void deps.watchersMetrics;
    // Configuration mistakes (unknown chain or network) stop start-up here, naming the key.
    // An instance that runs jobs starts each network's loop now rather than at the next minute's
    // schedule (a CLI command or a gateway-only process leaves the loops alone).
    if (deps.kernelRole === 'worker' || deps.kernelRole === 'all') {
      for (const target of deps.watchersRegistry.list()) await sendScanPass(deps, target.adapter.definition.id, target.network);
      // Push beside the loop: a new head starts a pass at once (networks whose providers offer it).
      deps.watchersPush.start();
    }
  }),
  stop: withDeps(['kernelRole', 'watchersPush'], async (deps) => {
    if (deps.kernelRole === 'worker' || deps.kernelRole === 'all') await deps.watchersPush.stop();
  }),
});

export * from './contract.js';
export { watchersErrors } from './errors.js';
export { WatchersConfigSchema, type WatchersConfig } from './config.js';
export { ACTIVATION_JOB, SCAN_JOB, type ScanJobData } from './jobs.js';
export { ActivationDetector, type ActivationProbe, type ActivationReport } from './services/activation-detector.js';
export { ChainScanner, type ScanReport, type ScanTarget, type MempoolReport } from './services/chain-scanner.js';
export { QuorumVerifier, type AttestationAnswer, type VerifyReport } from './services/quorum-verifier.js';
export type { Disagreement, DisagreementDesk, DisagreementStatus, ProviderMark } from './services/disagreement-desk.js';
export { PaymentMatcher, WATCHER_ACTOR, type MatchOutcome } from './services/payment-matcher.js';
export { OrphanInbox } from './services/orphan-inbox.js';
export { HeadPush } from './services/head-push.js';
export { WatcherStatusReads, type WatcherStatus } from './services/watcher-status.js';
export { ProviderBudgets, budgetScopeOf, paceOf, type ProviderPace } from './services/provider-budget.js';
export type { ProviderUsage, ProviderUsageReads } from './services/provider-usage.js';
export { ReceivedOutputsReads, MAX_OUTPUTS_PAGE } from './services/received-outputs-reads.js';
export { PoolWatchedAddresses, projectKindOn } from './services/watched-addresses.js';
export * from './schemas.js';

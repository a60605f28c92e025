import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { dashboardPages } from '@gw/plugin-dashboard/contract';
import { ACCOUNT_TREASURY_PAGE_DEPS, accountTreasuryPage } from './dashboard/account-treasury-page.js';
import { TREASURY_PAGE_DEPS, treasuryPage } from './dashboard/treasury-page.js';
import { m0001Treasury } from '../migrations/0001_treasury.js';
import { m0002AccountPlans } from '../migrations/0002_account_plans.js';
import { m0003PayoutPlans } from '../migrations/0003_payout_plans.js';
import { treasuryCommands } from './cli.js';
import { TreasuryConfigSchema } from './config.js';
import { TREASURY_EXPORTS } from './contract.js';
import { treasuryErrors } from './errors.js';
import { treasuryJobs } from './jobs.js';
import { registerTreasuryGauges } from './metrics.js';
import { treasuryMcpTools } from './mcp-tools.js';
import { treasuryRoutes } from './routes.js';
import { AccountBroadcaster } from './services/account-broadcast.js';
import { AccountNetworks } from './services/account-networks.js';
import { AccountPlans } from './services/account-plans.js';
import { AccountReconciliation } from './services/account-reconciliation.js';
import { AccountSignedImport } from './services/account-signed-import.js';
import { AccountSources } from './services/account-sources.js';
import { HotGasWallet } from './services/hot-gas-wallet.js';
import { MovedOutExport } from './services/moved-out-export.js';
import { TreasuryPayouts } from './services/payout-planner.js';
import { PlanStatusChanges } from './services/plan-status-change.js';
import { PlanTracker } from './services/plan-tracker.js';
import { Reconciliation } from './services/reconciliation.js';
import { SignedImport } from './services/signed-import.js';
import { SpendSources } from './services/spend-sources.js';
import { Sweepers } from './services/sweepers.js';
import { TreasuryBalances } from './services/treasury-balances.js';
import { TreasuryNetworks } from './services/treasury-networks.js';
import { TreasuryPlans } from './services/treasury-plans.js';

/**
 * The treasury (issue 35): every output the gateway's pool addresses received, balances
 * reconciled against the providers, and plans that move the money: unsigned transactions the
 * gateway builds, signed elsewhere (a hardware wallet, `gateway-signer`), verified to be exactly
 * the plan, broadcast and tracked to their confirmations. The gateway never holds a key.
 */
export const treasuryPlugin = definePlugin({
  id: 'treasury',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'watchers'],
  exports: TREASURY_EXPORTS,
  config: TreasuryConfigSchema,
  errors: [treasuryErrors],
  migrations: [m0001Treasury, m0002AccountPlans, m0003PayoutPlans],
  register: ({ config }) => ({
    treasuryConfig: serviceValue(config),
    treasuryPlanStatus: service(['extensions'], (deps) => new PlanStatusChanges(deps)),
    treasuryNetworks: service(['chains', 'watchersOutputs', 'treasuryConfig'], (deps) => new TreasuryNetworks(deps)),
    treasurySources: service(['addressPoolService', 'walletsWallets'], (deps) => new SpendSources(deps)),
    treasuryPlans: service(
      [
        'db',
        'audit',
        'logger',
        'watchersOutputs',
        'walletsWallets',
        'tenancyProjects',
        'treasuryConfig',
        'treasuryNetworks',
        'treasurySources',
        'treasuryPlanStatus',
      ],
      (deps) => new TreasuryPlans(deps),
    ),
    treasurySignedImport: service(
      ['db', 'audit', 'jobs', 'treasuryNetworks', 'treasurySources', 'treasuryPlans', 'treasuryPlanStatus'],
      (deps) => new SignedImport(deps),
    ),
    treasuryTracker: service(
      ['db', 'audit', 'logger', 'watchersOutputs', 'treasuryNetworks', 'treasuryPlans', 'treasuryPlanStatus'],
      (deps) => new PlanTracker(deps),
    ),
    treasuryBalances: service(['watchersOutputs', 'tenancyProjects', 'treasuryPlans'], (deps) => new TreasuryBalances(deps)),
    treasuryMovedOut: service(['db', 'tenancyProjects'], (deps) => new MovedOutExport(deps)),
    treasuryAccountNetworks: service(['chains', 'watchersOutputs', 'treasuryConfig'], (deps) => new AccountNetworks(deps)),
    treasuryAccountSources: service(['addressPoolService', 'tenancyProjects', 'walletsWallets', 'watchersOutputs'], (deps) => new AccountSources(deps)),
    treasuryHotGasWallet: service(['treasuryConfig', 'addressPoolService'], (deps) => new HotGasWallet(deps)),
    treasurySweepers: service(['db', 'logger'], (deps) => new Sweepers(deps)),
    treasuryAccountPlans: service(
      [
        'db',
        'audit',
        'logger',
        'addressPoolService',
        'tenancyProjects',
        'treasuryConfig',
        'treasuryAccountNetworks',
        'treasuryAccountSources',
        'treasuryHotGasWallet',
        'treasurySweepers',
        'treasuryPlanStatus',
      ],
      (deps) => new AccountPlans(deps),
    ),
    treasuryAccountSignedImport: service(
      ['db', 'audit', 'jobs', 'treasuryAccountNetworks', 'treasuryAccountPlans', 'treasuryHotGasWallet', 'treasuryPlanStatus'],
      (deps) => new AccountSignedImport(deps),
    ),
    treasuryAccountBroadcaster: service(
      ['db', 'audit', 'logger', 'treasuryAccountNetworks', 'treasuryAccountPlans', 'treasurySweepers', 'treasuryPlanStatus'],
      (deps) => new AccountBroadcaster(deps),
    ),
    treasuryPayouts: service(
      [
        'tenancyProjects',
        'walletsWallets',
        'treasuryNetworks',
        'treasuryPlans',
        'treasurySources',
        'treasuryAccountNetworks',
        'treasuryAccountSources',
        'treasuryAccountPlans',
      ],
      (deps) => new TreasuryPayouts(deps),
    ),
    treasuryAccountReconciliation: service(['db', 'watchersOutputs', 'treasuryConfig'], (deps) => new AccountReconciliation(deps)),
    treasuryReconciliation: service(
      ['db', 'audit', 'logger', 'watchersOutputs', 'treasuryConfig', 'treasuryNetworks', 'treasuryAccountNetworks', 'treasuryAccountReconciliation'],
      (deps) => new Reconciliation(deps),
    ),
  }),
  contributes: [dashboardPages(TREASURY_PAGE_DEPS, [treasuryPage]), dashboardPages(ACCOUNT_TREASURY_PAGE_DEPS, [accountTreasuryPage])],
  routes: treasuryRoutes,
  jobs: treasuryJobs,
  mcpTools: treasuryMcpTools,
  cli: treasuryCommands,
  start: withDeps(['metrics', 'db', 'logger', 'watchersOutputs', 'treasuryNetworks', 'treasuryAccountNetworks', 'treasuryHotGasWallet'], async (deps) => {
    deps.treasuryHotGasWallet.checkKeys((message) => deps.logger.warn(message));
    registerTreasuryGauges(deps.metrics.registry, deps);
  }),
});

export * from './contract.js';
export { TreasuryConfigSchema, type TreasuryConfig } from './config.js';
export { buildPlanFile } from './services/plan-file.js';
export { compare as reconcileOutputs } from './services/reconciliation.js';
export { percent } from './plan-view.js';

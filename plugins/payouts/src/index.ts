import { contribute, definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { dashboardPages } from '@gw/plugin-dashboard/contract';
import { invoicePageParts } from '@gw/plugin-invoices/contract';
import { TREASURY_PLAN_OBSERVERS } from '@gw/plugin-treasury/contract';
import { m0001Payouts } from '../migrations/0001_payouts.js';
import { PayoutsConfigSchema } from './config.js';
import { PAYOUTS_EXPORTS } from './contract.js';
import { payoutsErrors } from './errors.js';
import { payoutsCommands } from './cli.js';
import { INVOICE_REFUNDS_DEPS, invoiceRefundsPart } from './dashboard/invoice-refunds-part.js';
import { PAYOUTS_PAGE_DEPS, payoutsPage } from './dashboard/payouts-page.js';
import { payoutsMcpTools } from './mcp-tools.js';
import { MoneyOut } from './money-out.js';
import { moneyOutRoutes } from './money-out-routes.js';
import { payoutsRoutes } from './routes.js';
import { claimEmailJobs } from './claim/claim-email.js';
import { refundClaimPanels } from './claim/claim-panel.js';
import { claimRoutes } from './claim/claim-routes.js';
import { ItemStore } from './services/item-store.js';
import { PayoutApprovalsService } from './services/payout-approvals.js';
import { PayoutBatchesService } from './services/payout-batches.js';
import { PayoutItemsService } from './services/payout-items.js';
import { payoutPlanObserver } from './services/plan-observer.js';
import { Policies } from './services/policies.js';
import { RefundClaimsService } from './services/refund-claims.js';
import { SandboxSimulations } from './services/sandbox-simulations.js';
import { sandboxProjectPurger } from './services/sandbox-purger.js';

/**
 * Refunds and payouts (issue 37): partners propose them over the signed API (a refund of an
 * invoice, claimed by its payer on a public page; a payout to a given address), administrators
 * approve them, and approved items of one coin become a treasury `payout` plan, signed offline and
 * tracked as sweeps are. The plugin follows its plans through `TREASURY_PLAN_OBSERVERS`.
 */
export const payoutsPlugin = definePlugin({
  id: 'payouts',
  dependsOn: ['tenancy', 'invoices', 'rates', 'treasury'],
  exports: PAYOUTS_EXPORTS,
  config: PayoutsConfigSchema,
  errors: [payoutsErrors],
  migrations: [m0001Payouts],
  sealedColumns: [{ table: 'payouts_items', column: 'claim_token_sealed', aad: (id) => id }],
  register: ({ config }) => ({
    payoutsConfig: serviceValue(config),
    payoutsStore: service(['chains', 'invoiceEvents', 'invoicesService', 'kernelConfig', 'secretBox'], (deps) => new ItemStore(deps)),
    payoutsPolicies: service(['db', 'audit', 'payoutsConfig'], (deps) => new Policies(deps)),
    payoutsItems: service(
      ['db', 'audit', 'chains', 'tenancyProjects', 'invoicesService', 'ratesService', 'payoutsStore', 'payoutsPolicies', 'jobs', 'payoutsConfig'],
      (deps) => new PayoutItemsService(deps),
    ),
    payoutsClaims: service(['db', 'audit', 'chains', 'tenancyProjects', 'invoicesService', 'payoutsStore'], (deps) => new RefundClaimsService(deps)),
    payoutsApprovals: service(['db', 'audit', 'tenancyUsers', 'payoutsStore', 'payoutsPolicies'], (deps) => new PayoutApprovalsService(deps)),
    payoutsBatches: service(['db', 'audit', 'treasuryPayouts', 'payoutsStore'], (deps) => new PayoutBatchesService(deps)),
    payoutsMoneyOut: service(['db', 'chains', 'treasuryMovedOut', 'invoicesExporter'], (deps) => new MoneyOut(deps)),
    payoutsSimulations: service(['db', 'audit', 'invoicesService', 'payoutsStore'], (deps) => new SandboxSimulations(deps)),
  }),
  contributes: [
    contribute(
      TREASURY_PLAN_OBSERVERS,
      withDeps(['payoutsStore'], (deps) => [payoutPlanObserver(() => deps.payoutsStore)]),
    ),
    dashboardPages(PAYOUTS_PAGE_DEPS, [payoutsPage]),
    invoicePageParts(INVOICE_REFUNDS_DEPS, [invoiceRefundsPart]),
    // The checkout page of an invoice with a refund waiting for its claim links to the claim page.
    refundClaimPanels,
    // A sandbox project's reset or deletion purges its refunds and payouts.
    sandboxProjectPurger,
  ],
  // The partner API, the payer's claim page and the books (money out).
  routes: withDeps([...payoutsRoutes.deps, ...claimRoutes.deps, ...moneyOutRoutes.deps], (deps) => [
    ...payoutsRoutes.create(deps),
    ...claimRoutes.create(deps),
    ...moneyOutRoutes.create(deps),
  ]),
  jobs: claimEmailJobs,
  mcpTools: payoutsMcpTools,
  cli: payoutsCommands,
});

export * from './contract.js';
export { payoutsErrors } from './errors.js';
export { PayoutsConfigSchema, type PayoutsConfig } from './config.js';
export { ITEM_SIMULATIONS, ITEM_SIMULATION_RULES, simulatedTxid, type ItemSimulation } from './services/sandbox-simulations.js';
export { payoutPlanObserver } from './services/plan-observer.js';
export { CLAIM_EMAIL_JOB, enqueueClaimEmail, type ClaimEmailData } from './claim/claim-email.js';
export { CLAIM_ASSETS, CLAIM_POSTS_PER_TOKEN } from './claim/claim-routes.js';

import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { INVOICES_PAGE_DEPS, invoicesPage } from './dashboard/invoices-page.js';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { ACTIVITY_SECTION_DEPS, activitySection } from './dashboard/activity-section.js';
import { POLICY_PAGE_DEPS, policyPage } from './dashboard/policy-page.js';
import { INVOICES_EXPORTS } from './contract.js';
import { m0001Invoices } from '../migrations/0001_invoices.js';
import { m0002Lifecycle } from '../migrations/0002_lifecycle.js';
import { m0003Checkout } from '../migrations/0003_checkout.js';
import { InvoiceExporter } from './services/invoice-export.js';
import { createTransitionCounter } from './metrics.js';
import { m0004PaymentRate } from '../migrations/0004_payment_rate.js';
import { m0005PaidIndex } from '../migrations/0005_paid_index.js';
import { m0006UnderpaymentTolerance } from '../migrations/0006_underpayment_tolerance.js';
import { m0007FiatPrice } from '../migrations/0007_fiat_price.js';
import { m0008PaymentReference } from '../migrations/0008_payment_reference.js';
import { invoicesCommands } from './cli.js';
import { InvoicesConfigSchema } from './config.js';
import { invoicesErrors } from './errors.js';
import { invoicesRoutes } from './routes.js';
import { invoicesMcpTools } from './mcp-tools.js';
import { InvoiceService } from './services/invoice-service.js';
import { InvoiceCreator } from './services/invoice-creator.js';
import { InvoiceReads } from './services/invoice-reads.js';
import { InvoiceActivityReads } from './services/invoice-activity.js';
import { CheckoutLinks } from './services/checkout-links.js';
import { PolicyService } from './services/policy-service.js';
import { InvoiceLifecycle } from './lifecycle/invoice-lifecycle.js';
import { LifecycleStore } from './lifecycle/lifecycle-store.js';
import { OrphanAttribution } from './lifecycle/orphan-attribution.js';
import { invoicesJobs } from './jobs.js';

/**
 * Invoices over REST (spec 2.1, 4.2): idempotent creation with a pool address and an exchange-rate
 * snapshot, search with cursor pagination, retrieval, cancellation; per-project invoice policies
 * set by the operator CLI.
 */
export const invoicesPlugin = definePlugin({
  id: 'invoices',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'rates'],
  exports: INVOICES_EXPORTS,
  config: InvoicesConfigSchema,
  errors: [invoicesErrors],
  migrations: [
    m0001Invoices,
    m0002Lifecycle,
    m0003Checkout,
    m0004PaymentRate,
    m0005PaidIndex,
    m0006UnderpaymentTolerance,
    m0007FiatPrice,
    m0008PaymentReference,
  ],
  register: ({ config }) => ({
    invoicesConfig: serviceValue(config),
    invoicesTransitions: service(['metrics'], ({ metrics }) => createTransitionCounter(metrics.registry)),
    invoicesPolicies: service(['db', 'audit', 'chains', 'invoicesConfig', 'tenancyProjects'], (deps) => new PolicyService(deps)),
    invoicesService: service(['invoicesCreator', 'invoicesReads', 'invoicesLifecycle'], (deps) => new InvoiceService(deps)),
    invoicesCreator: service(
      [
        'db',
        'audit',
        'chains',
        'invoicesCheckoutLinks',
        'rateLimiter',
        'logger',
        'invoicesConfig',
        'invoicesPolicies',
        'addressPoolService',
        'walletsWallets',
        'ratesService',
        'invoicesTransitions',
      ],
      (deps) => new InvoiceCreator(deps),
    ),
    invoicesReads: service(['db', 'chains', 'invoicesCheckoutLinks'], (deps) => new InvoiceReads(deps)),
    invoicesActivity: service(['db'], (deps) => new InvoiceActivityReads(deps)),
    invoicesCheckoutLinks: service(['kernelConfig'], (deps) => new CheckoutLinks(deps)),
    invoicesLifecycleStore: service(
      ['extensions', 'chains', 'invoicesCheckoutLinks', 'audit', 'invoiceEvents', 'addressPoolService', 'ratesService', 'invoicesTransitions'],
      (deps) => new LifecycleStore(deps),
    ),
    invoicesExporter: service(['db', 'chains'], (deps) => new InvoiceExporter(deps)),
    invoicesLifecycle: service(['db', 'chains', 'invoicesConfig', 'invoicesLifecycleStore'], (deps) => new InvoiceLifecycle(deps)),
    invoicesAttribution: service(
      ['chains', 'audit', 'ratesService', 'addressPoolService', 'invoicesPolicies', 'invoicesLifecycleStore'],
      (deps) => new OrphanAttribution(deps),
    ),
  }),
  // Its dashboard pages (ADR 0011).
  contributes: [
    dashboardPages(INVOICES_PAGE_DEPS, [invoicesPage]),
    pageSections(ACTIVITY_SECTION_DEPS, [activitySection]),
    dashboardPages(POLICY_PAGE_DEPS, [policyPage]),
  ],
  routes: invoicesRoutes,
  mcpTools: invoicesMcpTools,
  jobs: invoicesJobs,
  cli: invoicesCommands,
  start: withDeps(['invoicesTransitions', 'invoicesPolicies', 'invoicesConfig', 'chains', 'logger'], async (deps) => {
    // Resolved eagerly so the counter is on /metrics before the first change.
    void deps.invoicesTransitions;
    // A dust floor override for a coin no chain has is a typo that would silently do nothing.
    for (const coin of Object.keys(deps.invoicesConfig.dustFloorUnits ?? {})) {
      if (deps.chains.knownCoin(coin) === undefined) throw new Error(`plugins.invoices.dustFloorUnits names coin "${coin}", which no chain of the build has`);
    }
    // Loud, not fatal: the operator accepted these (or set them before they needed accepting).
    for (const { projectId, chains } of await deps.invoicesPolicies.unconfirmedProductionProjects()) {
      deps.logger.warn(
        { project_id: projectId, chains },
        'invoices: a production project counts payments at 0 confirmations (unconfirmed transactions can be replaced or never confirm); raise it with gateway policy set --confirmations',
      );
    }
  }),
});

export * from './contract.js';
export { invoicesErrors } from './errors.js';
export { InvoicesConfigSchema, MATCHING_MODES, type InvoicesConfig, type MatchingMode } from './config.js';
export { INVOICE_STATUSES, type InvoiceStatus } from './invoice-status.js';
export { InvoiceService, type CreateInvoiceInput, type InvoiceListFilter, type InvoicePage } from './services/invoice-service.js';
export {
  InvoiceLifecycle,
  type ObservedPayment,
  type PaymentOutcome,
  type ConfirmationUpdate,
  type InvoiceTransferKey,
  type TransitionRecord,
  type PassMemory,
  newPass,
} from './lifecycle/invoice-lifecycle.js';
export { INVOICE_CHANGED_CHANNEL } from './lifecycle/lifecycle-store.js';
export { OrphanAttribution, type AttributionInput, type AttributionResult } from './lifecycle/orphan-attribution.js';
export { isFinal, liveTransfers, liveUnits, type FactInput, type InvoiceState, type TransferState, type TransferKey } from './lifecycle/invoice-state.js';
export {
  TRANSITIONS,
  REFUSALS,
  FACTS,
  CONDITIONS,
  NEW,
  settlement,
  isShort,
  allowedMoves,
  findTransition,
  statusesAccepting,
  statusesRefusing,
  statusesReaching,
  statusesReachedBy,
  statusesLeaving,
  type TransitionRow,
  type Fact,
} from './lifecycle/transition-table.js';
export { EXPIRING_STATUSES, MATCH_CANDIDATE_STATUSES, SETTLEABLE_STATUSES, SETTLED_STATUSES, TAKING_STATUSES } from './lifecycle/status-traits.js';
export { matchPayment, type MatchCandidate, type MatchDecision } from './lifecycle/payment-matching.js';
export { EXPIRE_JOB } from './jobs.js';
export { PolicyService, POLICY_LIMITS, type PolicyPatch, type ResolvedPolicy } from './services/policy-service.js';
export type { InvoiceView, InvoiceTransactionView } from './services/invoice-view.js';
export { CheckoutLinks, CHECKOUT_PATH, CHECKOUT_TOKEN_PATTERN } from './services/checkout-links.js';
export type { CheckoutInvoice } from './services/invoice-reads.js';
export { InvoiceActivityReads, type InvoiceActivity, type ActivitySeries, type ActivityBucket } from './services/invoice-activity.js';
export { partnerUrl } from './services/create-plan.js';
export * from './schemas.js';
export { invoiceWriteTools, type InvoiceWriteHandlers } from './mcp-tools.js';
export { InvoiceExporter, csvField, csvLines, CSV_COLUMNS, exportDocument, type ExportedInvoice, type ExportedTransaction } from './services/invoice-export.js';

import { asFunction, asValue } from 'awilix';
import { definePlugin, type Cradle } from '@gw/kernel';
import { m0001Invoices } from '../migrations/0001_invoices.js';
import { m0002Lifecycle } from '../migrations/0002_lifecycle.js';
import { m0003Checkout } from '../migrations/0003_checkout.js';
import { InvoiceExporter } from './services/invoice-export.js';
import { createTransitionCounter, type TransitionCounter } from './metrics.js';
import { m0004PaymentRate } from '../migrations/0004_payment_rate.js';
import { m0005PaidIndex } from '../migrations/0005_paid_index.js';
import { invoicesCommands } from './cli.js';
import { InvoicesConfigSchema, type InvoicesConfig } from './config.js';
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

declare module '@gw/kernel' {
  interface Cradle {
    readonly invoicesTransitions: TransitionCounter;
    readonly invoicesConfig: InvoicesConfig;
    readonly invoicesService: InvoiceService;
    readonly invoicesExporter: InvoiceExporter;
    readonly invoicesCreator: InvoiceCreator;
    readonly invoicesReads: InvoiceReads;
    /** The overview's aggregate: invoices and paid USD of the last day and week. */
    readonly invoicesActivity: InvoiceActivityReads;
    /** Builds `checkout_url` from the invoice's checkout token. */
    readonly invoicesCheckoutLinks: CheckoutLinks;
    readonly invoicesPolicies: PolicyService;
    readonly invoicesLifecycleStore: LifecycleStore;
    readonly invoicesLifecycle: InvoiceLifecycle;
    readonly invoicesAttribution: OrphanAttribution;
  }
}

/**
 * Invoices over REST (spec 2.1, 4.2): idempotent creation with a pool address and an exchange-rate
 * snapshot, search with cursor pagination, retrieval, cancellation; per-project invoice policies
 * set by the operator CLI.
 */
export const invoicesPlugin = definePlugin({
  id: 'invoices',
  dependsOn: ['tenancy', 'wallets', 'address-pool', 'rates'],
  config: InvoicesConfigSchema,
  errors: [invoicesErrors],
  migrations: [m0001Invoices, m0002Lifecycle, m0003Checkout, m0004PaymentRate, m0005PaidIndex],
  register: ({ config }) => ({
    invoicesConfig: asValue(config),
    invoicesTransitions: asFunction(({ metrics }: Cradle) => createTransitionCounter(metrics.registry)).singleton(),
    invoicesPolicies: asFunction((cradle: Cradle) => new PolicyService(cradle)).singleton(),
    invoicesService: asFunction((cradle: Cradle) => new InvoiceService(cradle)).singleton(),
    invoicesCreator: asFunction((cradle: Cradle) => new InvoiceCreator(cradle)).singleton(),
    invoicesReads: asFunction((cradle: Cradle) => new InvoiceReads(cradle)).singleton(),
    invoicesActivity: asFunction((cradle: Cradle) => new InvoiceActivityReads(cradle)).singleton(),
    invoicesCheckoutLinks: asFunction((cradle: Cradle) => new CheckoutLinks(cradle)).singleton(),
    invoicesLifecycleStore: asFunction((cradle: Cradle) => new LifecycleStore(cradle)).singleton(),
    invoicesExporter: asFunction((cradle: Cradle) => new InvoiceExporter(cradle)).singleton(),
    invoicesLifecycle: asFunction((cradle: Cradle) => new InvoiceLifecycle(cradle)).singleton(),
    invoicesAttribution: asFunction((cradle: Cradle) => new OrphanAttribution(cradle)).singleton(),
  }),
  routes: invoicesRoutes,
  mcpTools: invoicesMcpTools,
  jobs: invoicesJobs,
  cli: invoicesCommands,
  start: async (cradle) => {
    // Resolved eagerly so the counter is on /metrics before the first change.
    void cradle.invoicesTransitions;
  },
});

export { invoicesErrors } from './errors.js';
export { InvoicesConfigSchema, MATCHING_MODES, type InvoicesConfig, type MatchingMode } from './config.js';
export { INVOICE_STATUSES, WAITING_STATUSES, PAID_STATUSES, type InvoiceStatus } from './invoice-status.js';
export { InvoiceService, type CreateInvoiceInput, type InvoiceListFilter, type InvoicePage } from './services/invoice-service.js';
export {
  InvoiceLifecycle,
  type ObservedPayment,
  type PaymentOutcome,
  type ConfirmationUpdate,
  type InvoiceTransferKey,
  type TransitionRecord,
} from './lifecycle/invoice-lifecycle.js';
export { INVOICE_CHANGED_CHANNEL } from './lifecycle/lifecycle-store.js';
export { OrphanAttribution, type AttributionInput, type AttributionResult } from './lifecycle/orphan-attribution.js';
export { isFinal, liveTransfers, liveUnits, type FactInput, type InvoiceState, type TransferState, type TransferKey } from './lifecycle/invoice-state.js';
export { TRANSITIONS, REFUSALS, FACTS, CONDITIONS, NEW, settlement, isShort, allowedMoves, findTransition, type TransitionRow, type Fact } from './lifecycle/transition-table.js';
export { matchPayment, TAKING_STATUSES, type MatchCandidate, type MatchDecision } from './lifecycle/payment-matching.js';
export { EXPIRE_JOB } from './jobs.js';
export { PolicyService, POLICY_LIMITS, type PolicyPatch, type ResolvedPolicy } from './services/policy-service.js';
export type { InvoiceView, InvoiceTransactionView } from './services/invoice-view.js';
export { CheckoutLinks, CHECKOUT_PATH, CHECKOUT_TOKEN_PATTERN } from './services/checkout-links.js';
export type { CheckoutInvoice } from './services/invoice-reads.js';
export { InvoiceActivityReads, type InvoiceActivity, type ActivitySeries, type ActivityBucket } from './services/invoice-activity.js';
export { partnerUrl } from './services/create-plan.js';
export * from './schemas.js';
export { invoiceWriteTools, type InvoiceWriteHandlers } from './mcp-tools.js';
export { InvoiceExporter, multiplyDecimal, csvField, csvLines, CSV_COLUMNS, type ExportedInvoice, type ExportedTransaction } from './services/invoice-export.js';

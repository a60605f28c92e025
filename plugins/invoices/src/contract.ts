/**
 * The contract of the invoices plugin (invoices, their lifecycle and the statements it lends (ADR 0003)): the services it registers and
 * what other plugins may import from it (`@gw/plugin-invoices/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { InvoicesConfig } from './config.js';
import type { InvoiceLifecycle } from './lifecycle/invoice-lifecycle.js';
import type { LifecycleStore } from './lifecycle/lifecycle-store.js';
import type { OrphanAttribution } from './lifecycle/orphan-attribution.js';
import type { TransitionCounter } from './metrics.js';
import type { CheckoutLinks } from './services/checkout-links.js';
import type { InvoiceCreator } from './services/invoice-creator.js';
import type { InvoiceExporter } from './services/invoice-export.js';
import type { InvoiceReads } from './services/invoice-reads.js';
import type { InvoiceService } from './services/invoice-service.js';
import type { PolicyService } from './services/policy-service.js';

import type { InvoiceActivityReads } from './services/invoice-activity.js';

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
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const INVOICES_EXPORTS: readonly ServiceName[] = ['invoicesService', 'invoicesLifecycle', 'invoicesAttribution', 'invoicesExporter', 'invoicesPolicies'];

export { INVOICE_STATUSES, type InvoiceStatus } from './invoice-status.js';
export {
  CANCELLABLE_STATUSES,
  PAID_STATUSES,
  STATUS_TRAITS,
  type StatusTraits,
  statusesWhere,
  TERMINAL_STATUSES,
  WAITING_STATUSES,
} from './lifecycle/status-traits.js';
export { statusesReaching } from './lifecycle/transition-table.js';
export type { InvoiceLifecycle, ObservedPayment, PassMemory, PaymentOutcome, TransitionRecord } from './lifecycle/invoice-lifecycle.js';
export { newPass } from './lifecycle/invoice-lifecycle.js';
export { type InvoiceState, isFinal, liveTransfers, liveUnits, type TransferKey, type TransferState } from './lifecycle/invoice-state.js';
/** Observers of invoices' status changes, called in the changing transaction (issue 38). */
export { INVOICE_OBSERVERS, type InvoiceObserver, type InvoiceStatusChange } from './lifecycle/invoice-observers.js';
export { INVOICE_CHANGED_CHANNEL } from './lifecycle/lifecycle-store.js';
export { isShort, statusesAccepting, toleratedShortfall } from './lifecycle/transition-table.js';
export type { OrphanAttribution } from './lifecycle/orphan-attribution.js';
export { invoiceWriteTools } from './mcp-tools.js';
export { InvoiceWithTransactionsSchema } from './schemas.js';
/** The invoice API's routes at a mount, for a mirror of it (the sandbox's). */
export { INVOICE_CREATE_BODY_ERRORS, invoiceApiRoutes, type InvoiceApiMount, type InvoiceOperation } from './routes.js';
export { CHECKOUT_TOKEN_PATTERN } from './services/checkout-links.js';
/** The 16 KB cap of a partner's `metadata` (400 `validation_error` above it), shared by every partner record that carries metadata. */
export { checkMetadataSize, METADATA_MAX_BYTES } from './services/invoice-rules.js';
/** The check of a URL the checkout page sends the payer to (`return_url`, `cancel_url`), shared by every partner record that carries one. */
export { partnerUrl } from './services/create-plan.js';
export { invoicePaymentUri } from './services/payment-uri.js';
export type { CheckoutInvoice } from './services/invoice-reads.js';
export type { CreateInvoiceInput, InvoiceService } from './services/invoice-service.js';
export type { InvoiceView } from './services/invoice-view.js';
export { MATCHING_MODES, type MatchingMode } from './config.js';
export { DECIMAL_PATTERN } from './schemas.js';
export type { ActivitySeries, InvoiceActivityReads, PaidValue } from './services/invoice-activity.js';
export { CSV_COLUMNS, csvLines, exportDocument } from './services/invoice-export.js';
export { NO_TOLERANCE, POLICY_LIMITS, type PolicyPatch, type PolicyService, type ResolvedPolicy } from './services/policy-service.js';
export {
  INVOICE_PAGE_PARTS,
  invoicePageParts,
  type ContributedInvoicePagePart,
  type InvoicePagePart,
  type TimelineRow,
} from './dashboard/invoice-page-parts.js';

import { contribute, extensionPoint, withDeps, type Contribution, type DepName, type Deps, type ProjectKind, type SafeHtml } from '@gw/kernel';
import type { DashboardActionRequest, DashboardRequest } from '@gw/plugin-dashboard/contract';
import type { InvoiceView } from '../services/invoice-view.js';

/** One row of an invoice's timeline (merged with its audit rows, oldest first). */
export interface TimelineRow {
  readonly at: string;
  readonly id: string;
  readonly cells: readonly (SafeHtml | string)[];
}

/**
 * What another plugin adds to the dashboard's invoice page (ADR 0011): rows of its timeline (the
 * webhooks plugin's deliveries), a section after the transactions (the refunds), an action section after the cancel button and the cancel itself
 * for projects of its kinds (the sandbox's simulations, and its write limit on cancel).
 */
export interface InvoicePagePart<S = unknown> {
  readonly id: string;
  /** Project kinds it applies to (default: every kind). */
  readonly kinds?: readonly ProjectKind[];
  readonly timeline?: (req: DashboardRequest<S>, invoice: InvoiceView) => Promise<readonly TimelineRow[]>;
  /** A section every signed-in user sees after the transactions (the payouts plugin's refunds of the invoice). */
  readonly section?: (req: DashboardRequest<S>, invoice: InvoiceView) => Promise<SafeHtml>;
  /** Administrators only. */
  readonly actions?: (req: DashboardRequest<S>, invoice: InvoiceView) => Promise<SafeHtml>;
  /** Cancels instead of `invoicesService.cancel` (the first part of the project's kind that has one). */
  readonly cancel?: (req: DashboardActionRequest<S>, invoiceId: string) => Promise<InvoiceView>;
  /** Words the invoice pages add for what the part does (`simulated`), in their notes. */
  readonly verb?: { readonly participle: string; readonly gerund: string };
}

/** A part with the services it declared. */
export interface ContributedInvoicePagePart {
  readonly part: InvoicePagePart<any>;
  readonly services: unknown;
}

/** Parts of the dashboard's invoice pages, contributed by other plugins. */
export const INVOICE_PAGE_PARTS = extensionPoint<ContributedInvoicePagePart>('invoices.page-parts');

/** A plugin's invoice page parts, for its `contributes`; each reads exactly the services in `deps`. */
export function invoicePageParts<const K extends DepName>(
  deps: readonly K[],
  parts: readonly InvoicePagePart<Deps<K>>[],
): Contribution<ContributedInvoicePagePart> {
  return contribute(
    INVOICE_PAGE_PARTS,
    withDeps(deps, (services) => parts.map((part): ContributedInvoicePagePart => ({ part, services }))),
  );
}

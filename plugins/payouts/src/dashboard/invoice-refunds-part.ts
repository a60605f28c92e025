import { html } from '@gw/kernel';
import { table, when } from '@gw/plugin-dashboard/contract';
import type { InvoicePagePart } from '@gw/plugin-invoices/contract';
import type { PageServices } from '@gw/plugin-dashboard/contract';
import { approvalsOf, itemBadge } from './payouts-page.js';

/** What the part reads (ADR 0011). */
export const INVOICE_REFUNDS_DEPS = ['payoutsItems'] as const;

/** Refunds of one invoice are few (each needs what is left of what it received); one page shows them all. */
const REFUNDS_SHOWN = 200;

/**
 * The refunds of an invoice on its dashboard page (issue 37), for every signed-in user: amount,
 * status, approvals and the payer's address once claimed, each linking to its page under
 * "Refunds and payouts" where administrators approve or cancel it.
 */
export const invoiceRefundsPart: InvoicePagePart<PageServices<typeof INVOICE_REFUNDS_DEPS>> = {
  id: 'refunds',
  section: async (req, invoice) => {
    const refunds = await req.services.payoutsItems.list({ projectId: req.project!.id, kind: 'refund', invoiceId: invoice.id, limit: REFUNDS_SHOWN });
    const base = `/dashboard/projects/${req.project!.id}/payouts`;
    return html`<h2>Refunds</h2>
${table(
  `Refunds of invoice ${invoice.external_id}`,
  ['Refund', 'Status', 'Amount', 'Address', 'Approvals', 'Transaction', 'Created'],
  refunds.items.map((r) => [
    html`<a href="${base}/refunds/${r.id}"><code>${r.id}</code></a>`,
    itemBadge(r.status),
    html`${r.amount} <span class="unit">${r.coin}</span>`,
    r.address ? html`<code class="wrap">${r.address}</code>` : html`<span class="note">not claimed yet</span>`,
    approvalsOf(r),
    r.txid ? html`<code class="wrap">${r.txid}</code>` : '—',
    when(r.created_at_iso),
  ]),
  'No refund of this invoice.',
)}`;
  },
};

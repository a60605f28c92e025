import { html } from '@gw/kernel';
import type { PageServices } from '@gw/plugin-dashboard/contract';
import type { InvoicePagePart } from '@gw/plugin-invoices/contract';
import { sessionBadge, sessionsBase } from './checkout-sessions-page.js';

/** What the part reads (ADR 0011). */
export const INVOICE_SESSION_DEPS = ['sessionsCheckout'] as const;

/**
 * On the dashboard page of an invoice a checkout session created (the payer's pick, or a late
 * payment credited to the session): the session it belongs to, its status and whether this invoice
 * is the one that paid it, linking to the session's page. Other invoices show nothing.
 */
export const invoiceSessionPart: InvoicePagePart<PageServices<typeof INVOICE_SESSION_DEPS>> = {
  id: 'checkout-session',
  section: async (req, invoice) => {
    const session = await req.services.sessionsCheckout.ofInvoice(invoice.id);
    if (!session) return html``;
    const own = session.invoices.find((i) => i.invoice_id === invoice.id);
    const role =
      session.invoice_id === invoice.id
        ? session.status === 'completed'
          ? 'This invoice paid the session.'
          : 'This is the invoice of the coin the payer picked last.'
        : own?.late
          ? 'A late payment credited to the session (the payer had switched to another coin, or the session had closed).'
          : 'An invoice the payer switched away from.';
    return html`<h2>Checkout session</h2>
<p><a href="${sessionsBase(req.project!.id)}/${session.id}"><code>${session.id}</code></a> ${sessionBadge(session.status)} · ${session.price_amount} ${session.price_currency}. ${role}</p>`;
  },
};

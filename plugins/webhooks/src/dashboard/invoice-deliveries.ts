import { html } from '@gw/kernel';
import { badge, type PageServices, when } from '@gw/plugin-dashboard/contract';
import type { InvoicePagePart } from '@gw/plugin-invoices/contract';

/** What the part reads (ADR 0011). */
export const INVOICE_DELIVERIES_DEPS = ['webhooksEventLog'] as const;

/** The webhook events of an invoice in the timeline of its dashboard page, each linked to its deliveries. */
export const invoiceDeliveriesPart: InvoicePagePart<PageServices<typeof INVOICE_DELIVERIES_DEPS>> = {
  id: 'webhooks',
  timeline: async (req, invoice) => {
    const events = await req.services.webhooksEventLog.list(req.project!.id, { invoice_id: invoice.id, limit: 100 });
    return events.items.map((e) => ({
      at: e.created_at_iso,
      id: e.id,
      cells: [
        when(e.created_at_iso),
        'webhook',
        html`<a href="/dashboard/projects/${req.project!.id}/webhooks/${e.id}">${e.event_type}</a>${e.original_event_id ? ' (resend)' : ''}`,
        html`${badge(e.status)} ${e.attempts} attempt(s)${e.last_http_status ? `, last HTTP ${e.last_http_status}` : ''}`,
      ],
    }));
  },
};

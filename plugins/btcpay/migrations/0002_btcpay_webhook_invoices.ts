import type { Migration } from '@gw/kernel';

/**
 * What the webhooks area last announced of each BTCPay invoice (issue 39): the session's status and
 * current invoice as its observers heard them, the BTCPay state the webhooks last told
 * (`InvoiceProcessing`, `InvoiceSettled`, … are sent when it changes) and the payments already
 * announced (`InvoiceReceivedPayment`, `InvoicePaymentSettled` once each). The row is locked while an
 * observer decides, so concurrent changes of one invoice announce each event once.
 */
export const m0002BtcpayWebhookInvoices: Migration = {
  name: '0002_btcpay_webhook_invoices',
  async up(knex) {
    await knex.raw(`
      create table btcpay_webhook_invoices (
        session_id text primary key,
        project_id text not null,
        session_status text not null default 'open' check (session_status in ('open', 'completed', 'expired')),
        invoice_id text null,
        invoice_seq integer null,
        status text not null default 'New',
        additional_status text not null default 'None',
        announced_payments jsonb not null default '[]'::jsonb,
        updated_at timestamptz not null default now()
      );
      create index btcpay_webhook_invoices_project on btcpay_webhook_invoices (project_id);
      comment on table btcpay_webhook_invoices is 'per BTCPay invoice (a checkout session): the state its webhooks last announced';
      comment on column btcpay_webhook_invoices.invoice_id is 'the session''s current invoice as the observers heard it (the latest pick, or the invoice that completed it)';
      comment on column btcpay_webhook_invoices.invoice_seq is 'the pick number of invoice_id (cs_<session>_<n>); null for a late payment''s invoice';
      comment on column btcpay_webhook_invoices.announced_payments is 'JSON array of "<event type>:<payment id>" already sent';`);
  },
  async down(knex) {
    await knex.raw('drop table if exists btcpay_webhook_invoices;');
  },
};

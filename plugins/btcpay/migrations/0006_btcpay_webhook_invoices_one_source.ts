import type { Migration } from '@gw/kernel';

/**
 * The webhooks no longer keep their own idea of a BTCPay invoice's session status and current
 * invoice: they read the session (its status and `invoice_id`) in the change's transaction, as the
 * invoices area's reads do, so the events and `GET` follow one source. The row keeps what was
 * announced (the state and the payments).
 */
export const m0006BtcpayWebhookInvoicesOneSource: Migration = {
  name: '0006_btcpay_webhook_invoices_one_source',
  async up(knex) {
    await knex.raw(`
      alter table btcpay_webhook_invoices drop column session_status, drop column invoice_id, drop column invoice_seq;`);
  },
  async down(knex) {
    await knex.raw(`
      alter table btcpay_webhook_invoices
        add column session_status text not null default 'open' check (session_status in ('open', 'completed', 'expired')),
        add column invoice_id text null,
        add column invoice_seq integer null;`);
  },
};

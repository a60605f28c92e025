import type { Migration } from '@gw/kernel';

/**
 * BTCPay's archive of an invoice (`DELETE .../invoices/{id}`, undone by `.../unarchive`): an
 * archived invoice stays readable by its id and leaves the store's list unless the list asks for
 * `includeArchived`. Nothing else changes: the checkout session goes on as it was.
 */
export const m0005BtcpayInvoicesArchive: Migration = {
  name: '0005_btcpay_invoices_archive',
  async up(knex) {
    await knex.raw(`
      alter table btcpay_invoices add column archived_at timestamptz null;
      comment on column btcpay_invoices.archived_at is 'when the merchant archived the invoice (BTCPay''s archive); null when not archived';`);
  },
  async down(knex) {
    await knex.raw('alter table btcpay_invoices drop column if exists archived_at;');
  },
};

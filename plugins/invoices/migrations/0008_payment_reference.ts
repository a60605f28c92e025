import type { Migration } from '@gw/kernel';

/**
 * Payment references (issue 43): on a chain where every invoice pays the merchant's one address
 * (Solana), each invoice carries a fresh reference its payment URI asks the payer's wallet to add
 * to the transaction, and matching finds the invoice by it. Unique per chain; null on chains that
 * derive an address per invoice. The partial indexes serve matching (by reference; pending `exact`
 * invoices by amount at the shared address) and the watchers' list of references to look up.
 */
export const m0008PaymentReference: Migration = {
  name: '0008_payment_reference',
  async up(knex) {
    await knex.raw(`alter table invoices_invoices add column payment_reference text`);
    await knex.raw(
      `create unique index invoices_invoices_payment_reference on invoices_invoices (chain, payment_reference) where payment_reference is not null`,
    );
    await knex.raw(`create index invoices_invoices_reference_amount on invoices_invoices (project_id, address, coin, amount_units)
                      where payment_reference is not null and status = 'pending' and matching_mode = 'exact'`);
    await knex.raw(`create index invoices_invoices_reference_watch on invoices_invoices (chain, status, updated_at) where payment_reference is not null`);
  },
  async down(knex) {
    await knex.raw(`drop index invoices_invoices_reference_watch`);
    await knex.raw(`drop index invoices_invoices_reference_amount`);
    await knex.raw(`drop index invoices_invoices_payment_reference`);
    await knex.raw(`alter table invoices_invoices drop column payment_reference`);
  },
};

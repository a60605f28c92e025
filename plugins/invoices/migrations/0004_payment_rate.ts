import type { Migration } from '@gw/kernel';

/**
 * USD at payment, for accounting exports (issue 23): when an invoice first reaches a paid status,
 * the time and the USD rate of its coin then (the quote the rates cache selected, if a usable one
 * existed). Invoices already paid get their last update as the payment time and no rate (none was
 * recorded then), so a later change of a paid invoice (an over-payment) never takes its own time and
 * rate for the payment's.
 */
export const m0004PaymentRate: Migration = {
  name: '0004_payment_rate',
  async up(knex) {
    await knex.raw(`alter table invoices_invoices add column paid_at timestamptz, add column paid_usd_rate numeric, add column paid_rate_source text`);
    await knex.raw(`update invoices_invoices set paid_at = updated_at where status in ('paid', 'overpaid', 'expired_paid_late')`);
  },
  async down(knex) {
    await knex.raw(`alter table invoices_invoices drop column paid_at, drop column paid_usd_rate, drop column paid_rate_source`);
  },
};

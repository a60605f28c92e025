import type { Migration } from '@gw/kernel';

/**
 * A price in a fiat currency (issue 38): the currency, the amount in it and the USD per unit it was
 * converted at when the invoice was created (`amount_usd` is their product, rounded to cents).
 * All three or none: invoices priced in USD or in the coin have none.
 */
export const m0007FiatPrice: Migration = {
  name: '0007_fiat_price',
  async up(knex) {
    await knex.raw(`alter table invoices_invoices add column price_currency text, add column price_amount numeric, add column price_rate numeric`);
    await knex.raw(`alter table invoices_invoices add constraint invoices_invoices_price_check check (
      (price_currency is null and price_amount is null and price_rate is null)
      or (price_currency ~ '^[A-Z]{3}$' and price_amount > 0 and price_rate > 0))`);
  },
  async down(knex) {
    await knex.raw(`alter table invoices_invoices drop column price_currency, drop column price_amount, drop column price_rate`);
  },
};

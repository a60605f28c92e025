import type { Migration } from '@gw/kernel';

/**
 * The hosted checkout page (issue 21): every invoice gets an unguessable `checkout_token` (the
 * page's URL is `{base_url}/checkout/{token}`), and may carry the partner's `return_url` and
 * `cancel_url`. Invoices created before this migration get a token from `gen_random_uuid()`
 * (cryptographically random, 244 bits over two UUIDs).
 */
export const m0003Checkout: Migration = {
  name: '0003_checkout',
  async up(knex) {
    await knex.raw(`alter table invoices_invoices add column checkout_token text, add column return_url text, add column cancel_url text`);
    await knex.raw(`update invoices_invoices set checkout_token = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`);
    await knex.raw(`alter table invoices_invoices alter column checkout_token set not null`);
    await knex.raw(`create unique index invoices_invoices_checkout_token on invoices_invoices (checkout_token)`);
  },
  async down(knex) {
    await knex.raw(`drop index invoices_invoices_checkout_token`);
    await knex.raw(`alter table invoices_invoices drop column checkout_token, drop column return_url, drop column cancel_url`);
  },
};

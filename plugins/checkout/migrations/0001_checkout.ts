import type { Migration } from '@gw/kernel';

/** Per-project branding of the checkout page: display name, logo (a data URI) and accent colour. */
export const m0001Checkout: Migration = {
  name: '0001_checkout',
  async up(knex) {
    await knex.raw(`create table checkout_branding (
      project_id text primary key,
      display_name text,
      logo_data_uri text,
      colour text check (colour ~ '^#[0-9a-f]{6}$'),
      updated_at timestamptz not null default now()
    )`);
  },
  async down(knex) {
    await knex.raw('drop table checkout_branding');
  },
};

import type { Migration } from '@gw/kernel';

/**
 * Where a binding's key came from: `registered` by the operator (ownership proved by signature)
 * or `generated` by the service for a sandbox project (never on chain, so its TRON addresses need
 * no activation).
 */
export const m0002BindingOrigin: Migration = {
  name: '0002_binding_origin',
  async up(knex) {
    await knex.raw(`alter table wallets_bindings add column origin text not null default 'registered'`);
    await knex.raw(`alter table wallets_bindings add constraint wallets_bindings_origin_check check (origin in ('registered', 'generated'))`);
  },
  async down(knex) {
    await knex.raw('alter table wallets_bindings drop column origin');
  },
};

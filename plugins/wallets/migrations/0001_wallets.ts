import type { Migration } from '@gw/kernel';

/**
 * Wallet bindings: one current binding per (project, chain), plus the superseded ones kept for
 * history (address-pool rows and past invoices refer to a binding by id).
 */
export const m0001Wallets: Migration = {
  name: '0001_wallets',
  async up(knex) {
    await knex.schema.createTable('wallets_bindings', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.text('chain').notNullable();
      t.text('network_kind').notNullable();
      t.text('account_key_input').notNullable().comment('the key exactly as the operator gave it (trimmed)');
      t.text('account_key_canonical').notNullable().comment('the adapter canonical form used for derivation');
      t.string('key_fingerprint', 16).notNullable().comment('first 16 hex of sha256(chain:canonical)');
      t.text('state').notNullable().defaultTo('pending');
      t.text('challenge_message').notNullable().comment('exact text index 0 must sign');
      t.string('challenge_nonce', 32).notNullable();
      t.timestamp('challenge_expires_at', { useTz: true }).notNullable();
      t.timestamp('bound_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('verified_at', { useTz: true }).nullable();
      t.timestamp('superseded_at', { useTz: true }).nullable().comment('set when a newer binding replaced this one');
      t.index(['project_id']);
    });
    await knex.raw(`alter table wallets_bindings add constraint wallets_bindings_state_check
      check (state in ('pending', 'verified'))`);
    await knex.raw(`alter table wallets_bindings add constraint wallets_bindings_network_kind_check
      check (network_kind in ('mainnet', 'testnet'))`);
    await knex.raw(`alter table wallets_bindings add constraint wallets_bindings_verified_at_check
      check ((state = 'verified') = (verified_at is not null))`);
    // Exactly one current binding per project and chain.
    await knex.raw(`create unique index wallets_bindings_one_current
      on wallets_bindings (project_id, chain) where superseded_at is null`);
  },
  async down(knex) {
    await knex.schema.dropTable('wallets_bindings');
  },
};

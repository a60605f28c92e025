import type { Migration } from '@gw/kernel';

/**
 * Invoices, the on-chain transactions attributed to them, and the per-project invoice policies.
 * `pool_address_id` names the address pool's row (no foreign key across plugins: the pool is only
 * reached through its service). Money columns are `numeric`, never floating point.
 */
export const m0001Invoices: Migration = {
  name: '0001_invoices',
  async up(knex) {
    await knex.schema.createTable('invoices_invoices', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.text('project_kind').notNullable().comment('production | testnet | sandbox, copied at creation (the kind never changes)');
      t.text('external_id').notNullable();
      t.text('request_fingerprint').notNullable().comment('sha256 of the normalised create request; a replay must match it');
      t.text('coin').notNullable();
      t.text('chain').notNullable();
      t.text('address').notNullable();
      t.string('pool_address_id', 26).notNullable();
      t.boolean('address_shared').notNullable().comment('overlay allocation: the address is shared with other open invoices');
      t.timestamp('address_released_at', { useTz: true }).nullable();
      t.text('derivation_path').notNullable();
      t.text('verification_standard').notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.text('amount_crypto').notNullable().comment('canonical decimal string of amount_units');
      t.specificType('amount_usd', 'numeric(20,8)').nullable();
      t.jsonb('rate_snapshot').nullable();
      t.text('payment_token').notNullable().unique();
      t.text('payment_uri').notNullable();
      t.text('callback_url').nullable();
      t.jsonb('metadata').nullable();
      t.text('matching_mode').notNullable();
      t.integer('confirmation_threshold').notNullable();
      t.text('status').notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.unique(['project_id', 'external_id']);
    });
    await knex.raw(`alter table invoices_invoices add constraint invoices_invoices_status_check check (status in
      ('pending', 'detected', 'paid', 'overpaid', 'partial', 'expired', 'expired_paid_late', 'reverted', 'cancelled', 'ambiguous'))`);
    await knex.raw(`alter table invoices_invoices add constraint invoices_invoices_matching_mode_check check (matching_mode in ('exact', 'at_least', 'any'))`);
    await knex.raw(`alter table invoices_invoices add constraint invoices_invoices_amount_check check (amount_units > 0 and confirmation_threshold >= 0)`);
    await knex.raw(`alter table invoices_invoices add constraint invoices_invoices_token_check check (payment_token ~ '^[0-9a-f]{8}([0-9a-f]{8}){0,1}$')`);
    // Listing walks (project_id, id desc); filters narrow within a project.
    await knex.raw(`create index invoices_invoices_project_id on invoices_invoices (project_id, id desc)`);
    await knex.raw(`create index invoices_invoices_project_status on invoices_invoices (project_id, status, id desc)`);
    await knex.raw(`create index invoices_invoices_project_created on invoices_invoices (project_id, created_at)`);
    await knex.raw(`create index invoices_invoices_address on invoices_invoices (chain, address, status)`);

    await knex.schema.createTable('invoices_transactions', (t) => {
      t.string('id', 26).primary();
      t.string('invoice_id', 26).notNullable().references('id').inTable('invoices_invoices').onDelete('CASCADE');
      t.string('project_id', 26).notNullable();
      t.text('chain').notNullable();
      t.text('coin').notNullable();
      t.text('tx_hash').notNullable();
      t.integer('output_index').notNullable().defaultTo(0);
      t.text('to_address').notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.bigInteger('block_height').nullable();
      t.text('block_hash').nullable();
      t.integer('confirmations').notNullable().defaultTo(0);
      t.text('status').notNullable().defaultTo('pending').comment('pending (seen, counting) | confirmed | reverted');
      t.boolean('synthetic').notNullable().defaultTo(false).comment('written by the sandbox, not observed on chain');
      t.timestamp('detected_at', { useTz: true }).notNullable();
      t.timestamp('confirmed_at', { useTz: true }).nullable();
      t.unique(['invoice_id', 'tx_hash', 'output_index']);
      t.index(['project_id', 'tx_hash']);
    });
    await knex.raw(
      `alter table invoices_transactions add constraint invoices_transactions_status_check check (status in ('pending', 'confirmed', 'reverted'))`,
    );

    await knex.schema.createTable('invoices_project_policies', (t) => {
      t.string('project_id', 26).primary().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.text('default_matching_mode').nullable().comment('null: the deployment default');
      t.integer('expiry_seconds').nullable().comment('null: the deployment default');
      t.jsonb('confirmations').notNullable().defaultTo('{}').comment('chain -> confirmation threshold overrides');
      t.specificType('enabled_coins', 'text[]').nullable().comment('null: every coin of the enabled chains');
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
  },
  async down(knex) {
    await knex.schema.dropTable('invoices_project_policies');
    await knex.schema.dropTable('invoices_transactions');
    await knex.schema.dropTable('invoices_invoices');
  },
};

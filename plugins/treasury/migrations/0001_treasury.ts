import type { Migration } from '@gw/kernel';

/**
 * Plans (issue 35): each unsigned transaction the gateway built to move what pool addresses
 * received, through signature, broadcast and confirmation; the outputs each plan spends; and what
 * reconciliation against the providers found.
 *
 * An output is held by at most one plan at a time: `treasury_plan_inputs.held` is true while its
 * plan is open (waiting for a fee, awaiting a signature, signed, broadcast, confirmed), and a
 * partial unique index on the outpoint over held rows refuses a second plan over it even when two
 * plans are made at once. A bump moves the inputs (the replaced plan's rows stop being held in the
 * transaction that inserts the replacement's).
 */
export const m0001Treasury: Migration = {
  name: '0001_treasury',
  async up(knex) {
    await knex.schema.createTable('treasury_plans', (t) => {
      t.string('id', 26).primary();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('coin').notNullable();
      t.text('kind').notNullable();
      t.text('status').notNullable();
      t.string('operator_id', 26).nullable().comment('the operator whose token made it; null from the CLI');
      t.text('destination').notNullable();
      t.text('destination_kind').notNullable();
      t.string('destination_wallet_id', 26).nullable().comment('own destination: the wallet binding whose change chain it is');
      t.integer('destination_index').nullable().comment('own destination: index on the change chain (branch 1)');
      t.specificType('fee_rate', 'numeric(78,0)').nullable().comment('base units per size unit; null while waiting for a fee');
      t.specificType('fee_units', 'numeric(78,0)').nullable();
      t.specificType('value_units', 'numeric(78,0)').notNullable().comment('sum of the inputs');
      t.specificType('max_fee_rate', 'numeric(78,0)').nullable().comment('wait-for-fee: proceed when the next-block rate is at most this');
      t.integer('size').nullable().comment('in the chain size unit, once signed (estimated)');
      t.text('unsigned_format').nullable();
      t.text('unsigned_data').nullable();
      t.text('txid').nullable();
      t.jsonb('plan_file').nullable().comment('the PlanFile JSON handed to the signer');
      t.jsonb('skipped').notNullable().defaultTo('[]').comment('outputs not worth moving at the fee rate');
      t.text('signed_digest').nullable().comment('sha256 of the imported signed text: a second import of it answers as the first');
      t.text('signed_hex').nullable();
      t.string('replaces_plan_id', 26).nullable().references('id').inTable('treasury_plans');
      t.text('parent_txid').nullable().comment('accelerate: the unconfirmed transaction the child pays for');
      t.text('created_by').notNullable();
      t.integer('confirmations').notNullable().defaultTo(0);
      t.integer('block_height').nullable();
      t.text('block_hash').nullable();
      t.text('failure').nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('signed_at', { useTz: true }).nullable();
      t.timestamp('broadcast_at', { useTz: true }).nullable();
      t.timestamp('confirmed_at', { useTz: true }).nullable();
    });
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_kind_check check (kind in ('sweep', 'bump', 'accelerate'))`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_status_check check (status in
      ('waiting_for_fee', 'awaiting_signature', 'signed', 'broadcast', 'confirmed', 'replaced', 'invalidated', 'cancelled', 'failed'))`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_destination_kind_check check (destination_kind in ('own', 'external'))`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_units_check check (value_units >= 0 and (fee_units is null or fee_units >= 0)
      and (fee_rate is null or fee_rate >= 0) and (max_fee_rate is null or max_fee_rate >= 0))`);
    // Everything past waiting has a transaction; everything past signing has the signed one.
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_built_check
      check (status in ('waiting_for_fee', 'invalidated', 'cancelled') or (unsigned_data is not null and txid is not null and fee_units is not null))`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_signed_check
      check (status not in ('signed', 'broadcast', 'confirmed') or (signed_hex is not null and signed_digest is not null))`);
    await knex.raw(`create index treasury_plans_status on treasury_plans (status, id)`);
    await knex.raw(`create index treasury_plans_network on treasury_plans (chain, network, id desc)`);
    // A bump keeps its replaced plan's change address, so (wallet, index) repeats; new indexes are taken under a per-wallet lock.
    await knex.raw(
      `create index treasury_plans_own_destination on treasury_plans (destination_wallet_id, destination_index) where destination_wallet_id is not null`,
    );

    await knex.schema.createTable('treasury_plan_inputs', (t) => {
      t.bigIncrements('id');
      t.string('plan_id', 26).notNullable().references('id').inTable('treasury_plans').onDelete('CASCADE');
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('tx_hash').notNullable();
      t.integer('output_index').notNullable();
      t.text('address').notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.string('project_id', 26).notNullable();
      t.string('pool_address_id', 26).notNullable();
      t.string('invoice_id', 26).nullable();
      t.boolean('held').notNullable().defaultTo(true);
    });
    await knex.raw(`alter table treasury_plan_inputs add constraint treasury_plan_inputs_amount_check check (amount_units > 0 and output_index >= 0)`);
    await knex.raw(`create unique index treasury_plan_inputs_held on treasury_plan_inputs (chain, network, tx_hash, output_index) where held`);
    await knex.raw(`create index treasury_plan_inputs_plan on treasury_plan_inputs (plan_id)`);

    await knex.schema.createTable('treasury_reconciliations', (t) => {
      t.string('id', 26).primary();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.integer('addresses').notNullable().defaultTo(0);
      t.integer('provider_calls')
        .notNullable()
        .defaultTo(0)
        .comment('unspentAt calls, each a batch of addresses: an Esplora provider answers each address of a batch with a request of its own');
      t.integer('differences').notNullable().defaultTo(0);
      t.text('failure').nullable();
      t.timestamp('started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('finished_at', { useTz: true }).nullable();
    });
    await knex.raw(`create index treasury_reconciliations_network on treasury_reconciliations (chain, network, id desc)`);
    await knex.schema.createTable('treasury_reconciliation_differences', (t) => {
      t.bigIncrements('id');
      t.string('reconciliation_id', 26).notNullable().references('id').inTable('treasury_reconciliations').onDelete('CASCADE');
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('address').notNullable();
      t.string('project_id', 26).notNullable().comment('the project whose pool address it is: reads are confined to the caller’s projects');
      t.text('tx_hash').notNullable();
      t.integer('output_index').notNullable();
      t.text('kind').notNullable();
      t.specificType('gateway_units', 'numeric(78,0)').nullable();
      t.specificType('provider_units', 'numeric(78,0)').nullable();
    });
    await knex.raw(`alter table treasury_reconciliation_differences add constraint treasury_reconciliation_differences_kind_check
      check (kind in ('missing_at_provider', 'unknown_to_gateway', 'amount_differs'))`);
    await knex.raw(`create index treasury_reconciliation_differences_run on treasury_reconciliation_differences (reconciliation_id, id)`);
  },
  async down(knex) {
    await knex.schema.dropTable('treasury_reconciliation_differences');
    await knex.schema.dropTable('treasury_reconciliations');
    await knex.schema.dropTable('treasury_plan_inputs');
    await knex.schema.dropTable('treasury_plans');
  },
};

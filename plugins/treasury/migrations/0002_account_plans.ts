import type { Migration } from '@gw/kernel';

/**
 * Account-chain plans (issue 36): a plan on EVM, TRON or TON is a set of signed steps (top-ups,
 * token transfers, authorizations, submissions, activations) signed in rounds and broadcast in
 * stages, not one transaction. `treasury_plans` gains the method, the round awaiting signature,
 * the stage being broadcast and the chain state the build read (`context`, handed back to the
 * treasury's `continue`); `treasury_plan_steps` holds each step from its unsigned form to its
 * confirmation; `treasury_sweepers` the EIP-7702 token sweeper deployed per destination;
 * `treasury_reconciliation_differences` also holds an account chain's per-coin balance differences;
 * `treasury_plan_addresses` holds each deposit address (and coin) a plan moves, so a second open
 * plan over it, for any coin, is refused by the database, as `treasury_plan_inputs` does for outputs.
 */
export const m0002AccountPlans: Migration = {
  name: '0002_account_plans',
  async up(knex) {
    await knex.schema.alterTable('treasury_plans', (t) => {
      t.text('method')
        .nullable()
        .comment('account chains: native, gas_top_up, eip7702, eip3009, energy_burn, energy_delegation, jetton_batch, activation, sweeper_deployment');
      t.integer('round').nullable().comment('account chains: the signing round awaited or last completed (1 or 2)');
      t.integer('rounds').nullable().comment('account chains: signing rounds the plan takes');
      t.integer('stage').nullable().comment('account chains: the broadcast stage being sent; null before the first broadcast');
      t.jsonb('context').nullable().comment('account chains: the build’s chain state (chain id, prices), handed to continue()');
      t.specificType('operator_pays_units', 'numeric(78,0)').nullable().comment('account chains: native base units the operator accounts pay');
    });
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_kind_check`);
    await knex.raw(
      `alter table treasury_plans add constraint treasury_plans_kind_check check (kind in ('sweep', 'bump', 'accelerate', 'activation', 'sweeper_deployment'))`,
    );
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_account_check
      check (((method is null and kind not in ('activation', 'sweeper_deployment'))
        or (method is not null and kind in ('sweep', 'activation', 'sweeper_deployment') and round in (1, 2) and rounds in (1, 2) and context is not null))
        and ((kind = 'sweeper_deployment') = (method is not distinct from 'sweeper_deployment')))`);
    // Account plans carry their transactions in their steps, not in the plan row.
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_built_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_built_check
      check (method is not null or status in ('waiting_for_fee', 'invalidated', 'cancelled') or (unsigned_data is not null and txid is not null and fee_units is not null))`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_signed_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_signed_check
      check (method is not null or status not in ('signed', 'broadcast', 'confirmed') or (signed_hex is not null and signed_digest is not null))`);

    await knex.schema.createTable('treasury_plan_steps', (t) => {
      t.bigIncrements('id');
      t.string('plan_id', 26).notNullable().references('id').inTable('treasury_plans').onDelete('CASCADE');
      t.text('step_id').notNullable().comment('unique within the plan: topup-3, transfer-3, auth-3, submit-0');
      t.integer('round').notNullable();
      t.integer('stage').notNullable();
      t.text('kind').notNullable();
      t.text('description').notNullable();
      t.text('signer_kind').notNullable();
      t.text('signer_address').notNullable();
      t.text('signer_role').nullable().comment('operator steps: gas, funding or staking');
      t.text('signer_path').notNullable();
      t.jsonb('signer_key').nullable().comment('deposit steps: the account key (public) and receive index the signer derives from');
      t.integer('signer_index').nullable();
      t.text('unsigned_format').notNullable();
      t.text('unsigned_data').notNullable();
      t.specificType('nonce', 'numeric(78,0)').nullable();
      t.jsonb('moves').notNullable().defaultTo('{}').comment('coin id → base units moved, decimal strings');
      t.specificType('fee_units', 'numeric(78,0)').notNullable();
      t.text('to_address').notNullable();
      t.text('signed').nullable().comment('the verified signed transaction (hex, JSON, BOC) or authorization signature');
      t.text('signed_digest').nullable().comment('sha256 of the signed text');
      t.text('signed_by').nullable().comment('offline, or hot_gas_wallet (the operator’s opt-in gas key)');
      t.specificType('hot_spend_units', 'numeric(78,0)')
        .nullable()
        .comment('hot gas wallet steps: value + gas limit × max fee of the transaction it signed, decoded from it (the daily cap sums it)');
      t.text('txid').nullable();
      t.text('status').notNullable().defaultTo('awaiting_signature');
      t.integer('confirmations').notNullable().defaultTo(0);
      t.integer('block_height').nullable();
      t.text('failure').nullable();
      t.timestamp('signed_at', { useTz: true }).nullable();
      t.timestamp('broadcast_at', { useTz: true }).nullable();
      t.timestamp('confirmed_at', { useTz: true }).nullable();
      t.unique(['plan_id', 'step_id']);
    });
    await knex.raw(`alter table treasury_plan_steps add constraint treasury_plan_steps_check check (
      kind in ('transaction', 'authorization') and signer_kind in ('deposit', 'operator') and round in (1, 2) and stage >= 0
      and fee_units >= 0 and (nonce is null or nonce >= 0)
      and status in ('awaiting_signature', 'signed', 'broadcast', 'confirmed', 'failed')
      and (status = 'awaiting_signature' or signed is not null)
      and (signed_by is null or signed_by in ('offline', 'hot_gas_wallet'))
      and ((signed_by = 'hot_gas_wallet') = (hot_spend_units is not null)) and (hot_spend_units is null or hot_spend_units >= 0))`);
    await knex.raw(`create index treasury_plan_steps_plan on treasury_plan_steps (plan_id, round, stage, id)`);
    // The hot gas wallet's daily cap sums what it signed in the last 24 hours.
    await knex.raw(`create index treasury_plan_steps_hot on treasury_plan_steps (signed_at) where signed_by = 'hot_gas_wallet'`);

    await knex.schema.createTable('treasury_plan_addresses', (t) => {
      t.bigIncrements('id');
      t.string('plan_id', 26).notNullable().references('id').inTable('treasury_plans').onDelete('CASCADE');
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('coin').notNullable();
      t.text('address').notNullable();
      t.string('project_id', 26).notNullable();
      t.string('pool_address_id', 26).notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable().comment('what the plan moves from it (0 for an activation)');
      t.boolean('held').notNullable().defaultTo(true);
    });
    await knex.raw(`alter table treasury_plan_addresses add constraint treasury_plan_addresses_amount_check check (amount_units >= 0)`);
    // Per address, not per coin: on an account chain one address has one nonce sequence, so two open
    // plans over it (a USDT top-up and a native sweep) would both be built at the same nonce.
    await knex.raw(`create unique index treasury_plan_addresses_held on treasury_plan_addresses (chain, network, address) where held`);
    await knex.raw(`create index treasury_plan_addresses_plan on treasury_plan_addresses (plan_id)`);

    // EVM: the EIP-7702 token sweeper per destination, recorded once its deployment plan is confirmed.
    await knex.schema.createTable('treasury_sweepers', (t) => {
      t.bigIncrements('id');
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('destination').notNullable().comment('checksummed; the contract sends every delegated address’s tokens here, for good');
      t.text('contract').notNullable();
      t.string('plan_id', 26)
        .nullable()
        .references('id')
        .inTable('treasury_plans')
        .onDelete('SET NULL')
        .comment('the sweeper_deployment plan that deployed it');
      t.timestamp('recorded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    // One per destination: a later deployment for the same destination replaces the row (the newest is used).
    await knex.raw(`create unique index treasury_sweepers_destination on treasury_sweepers (chain, network, lower(destination))`);

    // Account chains are reconciled per address and coin (a balance), not per output.
    await knex.schema.alterTable('treasury_reconciliation_differences', (t) => {
      t.text('coin').nullable().comment('account chains: the coin whose balance differs');
      t.text('tx_hash').nullable().alter();
      t.integer('output_index').nullable().alter();
    });
    await knex.raw(`alter table treasury_reconciliation_differences drop constraint treasury_reconciliation_differences_kind_check`);
    await knex.raw(`alter table treasury_reconciliation_differences add constraint treasury_reconciliation_differences_kind_check
      check ((kind in ('missing_at_provider', 'unknown_to_gateway', 'amount_differs') and tx_hash is not null and output_index is not null and coin is null)
        or (kind = 'balance_differs' and coin is not null and tx_hash is null and output_index is null))`);
  },
  async down(knex) {
    await knex.raw(`delete from treasury_reconciliation_differences where kind = 'balance_differs'`);
    await knex.raw(`alter table treasury_reconciliation_differences drop constraint treasury_reconciliation_differences_kind_check`);
    await knex.raw(`alter table treasury_reconciliation_differences add constraint treasury_reconciliation_differences_kind_check
      check (kind in ('missing_at_provider', 'unknown_to_gateway', 'amount_differs'))`);
    await knex.schema.alterTable('treasury_reconciliation_differences', (t) => {
      t.dropColumn('coin');
      t.text('tx_hash').notNullable().alter();
      t.integer('output_index').notNullable().alter();
    });
    await knex.schema.dropTable('treasury_sweepers');
    await knex.schema.dropTable('treasury_plan_addresses');
    await knex.schema.dropTable('treasury_plan_steps');
    await knex.raw(`delete from treasury_plans where method is not null`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_account_check`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_kind_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_kind_check check (kind in ('sweep', 'bump', 'accelerate'))`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_built_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_built_check
      check (status in ('waiting_for_fee', 'invalidated', 'cancelled') or (unsigned_data is not null and txid is not null and fee_units is not null))`);
    await knex.raw(`alter table treasury_plans drop constraint treasury_plans_signed_check`);
    await knex.raw(`alter table treasury_plans add constraint treasury_plans_signed_check
      check (status not in ('signed', 'broadcast', 'confirmed') or (signed_hex is not null and signed_digest is not null))`);
    await knex.schema.alterTable('treasury_plans', (t) => {
      t.dropColumns('method', 'round', 'rounds', 'stage', 'context', 'operator_pays_units');
    });
  },
};

import type { Migration } from '@gw/kernel';

/**
 * Refunds and payouts (issue 37): one row per item (`payouts_items`), the administrators'
 * approvals (`payouts_approvals`) and each project's approval policy (`payouts_policies`).
 * Amounts are base units (`numeric(78,0)`); a refund's claim token is stored as its SHA-256 for
 * the lookup and sealed under the master key so the API can show the claim URL again.
 */
export const m0001Payouts: Migration = {
  name: '0001_payouts',
  async up(knex) {
    await knex.schema.createTable('payouts_items', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable();
      t.text('project_kind').notNullable();
      t.text('kind').notNullable();
      t.string('invoice_id', 26).nullable();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('coin').notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.text('rate').nullable().comment('USD per coin the amount was found with or valued at');
      t.text('rate_rule').nullable();
      t.text('spread_percent').nullable();
      t.text('address').nullable();
      t.text('reference').nullable();
      t.text('reason').nullable();
      t.jsonb('metadata').nullable();
      t.text('status').notNullable();
      t.text('claim_token_hash').nullable().unique();
      t.text('claim_token_sealed').nullable().comment('the claim token sealed under the master key (aad: the item id)');
      t.boolean('claim_requires_proof').notNullable().defaultTo(false);
      t.text('claim_email').nullable();
      t.text('proof_message').nullable();
      t.text('proof_signature').nullable();
      t.string('plan_id', 26).nullable();
      t.text('txid').nullable();
      t.specificType('fee_units', 'numeric(78,0)').nullable();
      t.text('failure_reason').nullable();
      t.text('idempotency_key').nullable();
      t.text('request_digest').nullable();
      t.integer('approvals_required').notNullable();
      t.text('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('claimed_at', { useTz: true }).nullable();
      t.timestamp('approved_at', { useTz: true }).nullable();
      t.timestamp('sent_at', { useTz: true }).nullable();
      t.timestamp('completed_at', { useTz: true }).nullable();
    });
    await knex.raw(`alter table payouts_items add constraint payouts_items_kind_check check (kind in ('refund', 'payout'))`);
    await knex.raw(`alter table payouts_items add constraint payouts_items_status_check
      check (status in ('awaiting_claim', 'claimed', 'pending_approval', 'approved', 'batched', 'sent', 'completed', 'failed', 'cancelled'))`);
    await knex.raw(`alter table payouts_items add constraint payouts_items_kind_fields_check
      check ((kind = 'refund' and invoice_id is not null) or (kind = 'payout' and invoice_id is null and reference is not null and address is not null))`);
    await knex.raw(`alter table payouts_items add constraint payouts_items_amount_check check (amount_units > 0)`);
    await knex.raw(`alter table payouts_items add constraint payouts_items_batched_check check (status <> 'batched' or plan_id is not null)`);
    await knex.raw(`create index payouts_items_project on payouts_items (project_id, kind, id desc)`);
    await knex.raw(`create index payouts_items_invoice on payouts_items (invoice_id) where invoice_id is not null`);
    await knex.raw(`create index payouts_items_plan on payouts_items (plan_id) where plan_id is not null`);
    await knex.raw(`create index payouts_items_approved on payouts_items (project_id, chain, network, coin) where status = 'approved'`);
    // A payout's reference names it within its project; a refund's is free text.
    await knex.raw(`create unique index payouts_items_reference on payouts_items (project_id, reference) where kind = 'payout'`);
    // One refund per Idempotency-Key; a payout request's items share its key (their references keep them apart).
    await knex.raw(
      `create unique index payouts_items_idempotency on payouts_items (project_id, kind, idempotency_key) where idempotency_key is not null and kind = 'refund'`,
    );
    await knex.raw(
      `create index payouts_items_payout_idempotency on payouts_items (project_id, idempotency_key) where idempotency_key is not null and kind = 'payout'`,
    );

    await knex.schema.createTable('payouts_approvals', (t) => {
      t.string('item_id', 26).notNullable().references('id').inTable('payouts_items').onDelete('CASCADE');
      t.text('user_id').notNullable().comment('a tenancy user id, or `cli` for the operator CLI');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['item_id', 'user_id']);
    });

    await knex.schema.createTable('payouts_policies', (t) => {
      t.string('project_id', 26).primary();
      t.text('dual_approval_above_usd').nullable();
      t.text('claim_proof_above_usd').nullable();
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
  },
  async down(knex) {
    await knex.schema.dropTable('payouts_policies');
    await knex.schema.dropTable('payouts_approvals');
    await knex.schema.dropTable('payouts_items');
  },
};

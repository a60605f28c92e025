import type { Migration } from '@gw/kernel';

/**
 * The trust rule (issue 40): no payment counts toward paid on one provider's word where a network
 * has a quorum above 1.
 *
 * On `watchers_transfers`: `attestation` says under which rule an in-block transfer may count
 * (`single`: the network's quorum is 1; `quorum`: that many providers of different operators
 * reported it in the same block at the threshold depth, named in `attested_by`; `operator`: the
 * operator accepted it over a disagreement), `attested_at` when; both null while it waits, and
 * cleared when a reorganisation takes it off the chain. `rejected_at`: the operator rejected it
 * over a disagreement (its row is `reverted` for good: never revived, never counted).
 *
 * `attestation_asked_at`: when the providers were first asked about an in-block transfer at its
 * threshold (cleared with the attestation by a reorganisation); a transfer that waits
 * `disagreementDecisionSeconds` from then without the quorum gets an `unattested` disagreement.
 *
 * `watchers_disagreements`: one row per disagreement about one transfer (at most one open per
 * transfer), with what each provider answered when last asked, its decision time and the
 * decision. Its `kind` says why it opened: `contradiction` (a provider denied the transfer or has
 * another block at its height), `out_of_reach` (marked providers leave fewer operators than the
 * quorum), `unattested` (no contradiction: the quorum never came within the decision time).
 * `mark_verdict` keeps the answers of its last check when they would mark the reporters; the next
 * check giving the same answers marks them, so one round of answers never marks anyone. `watchers_provider_marks`: providers caught reporting a transfer the others do not
 * have, passed over and not counted until the operator clears the mark (the row is deleted; the
 * audit log keeps the history).
 *
 * Transfers recorded before this migration counted on the scanning provider's word: they are
 * `single`, except an invoice's payment still below its threshold, which the next pass attests
 * under the network's quorum.
 */
export const m0005Quorum: Migration = {
  name: '0005_quorum',
  async up(knex) {
    await knex.raw(
      `alter table watchers_transfers
         add column attested_at timestamptz null,
         add column attested_by text[] null,
         add column attestation text null,
         add column rejected_at timestamptz null,
         add column attestation_asked_at timestamptz null`,
    );
    await knex.raw(
      `alter table watchers_transfers add constraint watchers_transfers_attestation_check
         check (attestation in ('single', 'quorum', 'operator') and attested_at is not null or attestation is null and attested_at is null)`,
    );
    await knex.raw(`alter table watchers_transfers add constraint watchers_transfers_rejected_check check (rejected_at is null or status = 'reverted')`);
    // Counted already, or no invoice's: as they were. An invoice's payment still below its threshold is left to the
    // next pass: attested `single` there on a network of quorum 1, put to the providers on one with a quorum.
    await knex.raw(
      `update watchers_transfers set attestation = 'single', attested_at = updated_at where status = 'in_block' and (final_at is not null or invoice_id is null)`,
    );
    // The verifier walks a network's in-block transfers that wait for their attestation (few: each waits only until its threshold).
    await knex.raw(
      `create index watchers_transfers_unattested on watchers_transfers (chain, network, block_height) where status = 'in_block' and attested_at is null`,
    );

    await knex.schema.createTable('watchers_disagreements', (t) => {
      t.string('id', 26).primary();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.string('transfer_id', 26).notNullable().references('id').inTable('watchers_transfers').onDelete('CASCADE');
      t.string('project_id', 26).notNullable();
      t.string('invoice_id', 26).nullable();
      t.text('coin').notNullable();
      t.text('tx_hash').notNullable();
      t.integer('output_index').notNullable();
      t.text('to_address').notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.bigInteger('block_height').notNullable();
      t.text('block_hash').notNullable();
      t.specificType('reported_by', 'text[]').notNullable().defaultTo('{}');
      t.specificType('denied_by', 'text[]').notNullable().defaultTo('{}');
      t.specificType('other_branch', 'text[]').notNullable().defaultTo('{}');
      t.specificType('lagging', 'text[]').notNullable().defaultTo('{}');
      t.text('kind').notNullable();
      t.text('mark_verdict').nullable();
      t.text('status').notNullable().defaultTo('open');
      t.timestamp('opened_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('decide_after', { useTz: true }).notNullable();
      t.integer('checks').notNullable().defaultTo(1).comment('times the providers were asked');
      t.timestamp('checked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('next_check_at', { useTz: true }).notNullable().comment('the providers are asked again from then on (backoff)');
      t.timestamp('closed_at', { useTz: true }).nullable();
      t.timestamp('decided_at', { useTz: true }).nullable();
      t.text('decided_by').nullable();
      t.text('reason').nullable();
    });
    await knex.raw(
      `alter table watchers_disagreements add constraint watchers_disagreements_status_check check (status in ('open', 'resolved', 'accepted', 'rejected'))`,
    );
    await knex.raw(
      `alter table watchers_disagreements add constraint watchers_disagreements_kind_check check (kind in ('contradiction', 'out_of_reach', 'unattested'))`,
    );
    await knex.raw(`alter table watchers_disagreements add constraint watchers_disagreements_closed_check check ((status = 'open') = (closed_at is null))`);
    await knex.raw(`create unique index watchers_disagreements_open on watchers_disagreements (transfer_id) where status = 'open'`);
    // The metric and the desk read a network's open ones; the desk lists newest first.
    await knex.raw(`create index watchers_disagreements_network on watchers_disagreements (chain, network, status)`);

    await knex.schema.createTable('watchers_provider_marks', (t) => {
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('provider').notNullable();
      t.text('reason').notNullable();
      t.string('disagreement_id', 26).nullable().references('id').inTable('watchers_disagreements').onDelete('SET NULL');
      t.timestamp('marked_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['chain', 'network', 'provider']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('watchers_provider_marks');
    await knex.schema.dropTable('watchers_disagreements');
    await knex.raw(`drop index watchers_transfers_unattested`);
    await knex.raw(`alter table watchers_transfers drop constraint watchers_transfers_rejected_check`);
    await knex.raw(`alter table watchers_transfers drop constraint watchers_transfers_attestation_check`);
    await knex.raw(
      `alter table watchers_transfers drop column attestation_asked_at, drop column rejected_at, drop column attestation, drop column attested_by, drop column attested_at`,
    );
  },
};

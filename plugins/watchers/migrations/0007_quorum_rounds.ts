import type { Migration } from '@gw/kernel';

/**
 * The quorum's second look (issue 40, review findings 2 and 3).
 *
 * - `watchers_transfers.attestation_asked_at`: when the providers were first asked about an
 *   in-block transfer at its threshold (the quorum verifier sets it; a reorganisation clears it
 *   with the attestation). A transfer that waits that long past `disagreementDecisionSeconds`
 *   without the quorum and without a contradiction (a provider lagging or failing for good) gets
 *   an `unattested` disagreement the operator can decide at once.
 * - `watchers_disagreements.kind`: why it opened: `contradiction` (a provider denied the transfer
 *   or has another block at its height), `out_of_reach` (marked providers leave fewer operators
 *   than the quorum), `unattested` (no contradiction: the quorum never came within the decision time).
 * - `watchers_disagreements.mark_verdict`: the answers of its last check when they would mark the
 *   reporters (every unmarked operator answered, the denying operators at least as many as the
 *   reporting ones); the next check that gives the same answers marks them, so one round of
 *   answers never marks anyone.
 *
 * Open disagreements with no denial on record were opened for marks leaving the quorum out of reach.
 */
export const m0007QuorumRounds: Migration = {
  name: '0007_quorum_rounds',
  async up(knex) {
    await knex.raw(`alter table watchers_transfers add column attestation_asked_at timestamptz null`);
    await knex.raw(
      `alter table watchers_disagreements
         add column kind text not null default 'contradiction',
         add column mark_verdict text null`,
    );
    await knex.raw(
      `alter table watchers_disagreements add constraint watchers_disagreements_kind_check check (kind in ('contradiction', 'out_of_reach', 'unattested'))`,
    );
    await knex.raw(`update watchers_disagreements set kind = 'out_of_reach' where denied_by = '{}' and other_branch = '{}'`);
  },
  async down(knex) {
    await knex.raw(`alter table watchers_disagreements drop constraint watchers_disagreements_kind_check`);
    await knex.raw(`alter table watchers_disagreements drop column mark_verdict, drop column kind`);
    await knex.raw(`alter table watchers_transfers drop column attestation_asked_at`);
  },
};

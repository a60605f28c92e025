import type { Migration } from '@gw/kernel';

/**
 * Spends of the outputs received (issue 35): `spent_by` is the transaction that spent the output
 * and `spent_height` the height of its block, both null while unspent. They sit on the transfer's
 * own row rather than in a table of their own: an output is spent at most once on a chain, so the
 * spend is one more fact about the row, read with it by every balance and plan, and written by one
 * set-based update per block that joins on the row's unique key.
 *
 * `watchers_transfers_unspent` serves the treasury's reads of unspent outputs per chain, network
 * and project, oldest first (keyset on id); `watchers_transfers_unspent_by_address` the balances
 * grouped by address; `watchers_transfers_spent` the rewinder, which clears the spends above a
 * reorganisation's common ancestor.
 */
export const m0004Spends: Migration = {
  name: '0004_spends',
  async up(knex) {
    await knex.raw(`alter table watchers_transfers add column spent_by text null, add column spent_height bigint null`);
    await knex.raw(
      `alter table watchers_transfers add constraint watchers_transfers_spent_check check ((spent_by is null) = (spent_height is null) and (spent_height is null or spent_height >= 0))`,
    );
    await knex.raw(
      `create index watchers_transfers_unspent on watchers_transfers (chain, network, project_id, id) where spent_by is null and status <> 'reverted'`,
    );
    await knex.raw(
      `create index watchers_transfers_unspent_by_address on watchers_transfers (chain, network, to_address) where spent_by is null and status <> 'reverted'`,
    );
    await knex.raw(`create index watchers_transfers_spent on watchers_transfers (chain, network, spent_height) where spent_height is not null`);
  },
  async down(knex) {
    await knex.raw(`drop index watchers_transfers_spent`);
    await knex.raw(`drop index watchers_transfers_unspent_by_address`);
    await knex.raw(`drop index watchers_transfers_unspent`);
    await knex.raw(`alter table watchers_transfers drop constraint watchers_transfers_spent_check`);
    await knex.raw(`alter table watchers_transfers drop column spent_height, drop column spent_by`);
  },
};

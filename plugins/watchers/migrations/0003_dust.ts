import type { Migration } from '@gw/kernel';

/**
 * A transfer below its coin's dust floor is recorded with `match = 'dust'` (issue 33, finding 11):
 * visible with the address's other transfers, never given to an invoice nor to the orphan inbox.
 */
export const m0003Dust: Migration = {
  name: '0003_dust',
  async up(knex) {
    await knex.raw(`alter table watchers_transfers drop constraint watchers_transfers_match_check`);
    await knex.raw(
      `alter table watchers_transfers add constraint watchers_transfers_match_check check (match in ('invoice', 'late', 'orphan', 'ambiguous', 'dust'))`,
    );
  },
  async down(knex) {
    await knex.raw(`delete from watchers_transfers where match = 'dust'`);
    await knex.raw(`alter table watchers_transfers drop constraint watchers_transfers_match_check`);
    await knex.raw(`alter table watchers_transfers add constraint watchers_transfers_match_check check (match in ('invoice', 'late', 'orphan', 'ambiguous'))`);
  },
};

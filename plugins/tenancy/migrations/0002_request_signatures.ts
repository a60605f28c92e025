import type { Migration } from '@gw/kernel';

/**
 * Signatures of single-use signed writes seen within their window (issue 26 finding 3): a replay
 * of a captured write is refused by every instance. Rows end with their signature's window and
 * the `tenancy.signature-sweep` job deletes them.
 */
export const m0002RequestSignatures: Migration = {
  name: '0002_request_signatures',
  async up(knex) {
    await knex.raw(`
      create table tenancy_request_signatures (
        project_id varchar(26) not null,
        signature char(64) not null,
        expires_at timestamptz not null,
        primary key (project_id, signature)
      );
      create index tenancy_request_signatures_expires_at on tenancy_request_signatures (expires_at);`);
  },
  async down(knex) {
    await knex.schema.dropTable('tenancy_request_signatures');
  },
};

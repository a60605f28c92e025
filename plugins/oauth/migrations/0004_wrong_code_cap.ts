import type { Migration } from '@gw/kernel';

/**
 * Issue 33 item 15: wrong sign-in codes are capped per e-mail address across codes, in a rolling
 * hour. A challenge remembers the SHA-256 of its address; each wrong entry of any challenge of the
 * address is a row of `oauth_code_failures`, counted over the last hour on the database clock.
 * Challenges written before this migration have no address and are not counted.
 */
export const m0004WrongCodeCap: Migration = {
  name: '0004_wrong_code_cap',
  async up(knex) {
    await knex.raw(`
      alter table oauth_email_challenges add column address_hash varchar(64) null;
      create table oauth_code_failures (
        id bigint generated always as identity primary key,
        address_hash varchar(64) not null,
        failed_at timestamptz not null default now()
      );
      create index oauth_code_failures_address on oauth_code_failures (address_hash, failed_at);
      create index oauth_code_failures_failed_at on oauth_code_failures (failed_at);`);
  },
  async down(knex) {
    await knex.raw(`
      drop table oauth_code_failures;
      alter table oauth_email_challenges drop column address_hash;`);
  },
};

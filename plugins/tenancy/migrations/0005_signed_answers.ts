import type { Migration } from '@gw/kernel';

/**
 * Answers of signed requests, kept for identical copies within the signature window (issue 33
 * items 2 and 14): a copy gets the first answer instead of a 401 or a second effect. `status` is
 * null while the first copy runs. Replaces `tenancy_request_signatures`, whose rows only refused
 * copies (their contents are transient: at most six minutes of signatures).
 */
export const m0005SignedAnswers: Migration = {
  name: '0005_signed_answers',
  async up(knex) {
    await knex.raw(`
      drop table tenancy_request_signatures;
      create table tenancy_signed_answers (
        project_id varchar(26) not null,
        request_hash text not null,
        expires_at timestamptz not null,
        status smallint,
        headers jsonb,
        body bytea,
        primary key (project_id, request_hash)
      );
      create index tenancy_signed_answers_expires_at on tenancy_signed_answers (expires_at);`);
  },
  async down(knex) {
    await knex.raw(`
      drop table tenancy_signed_answers;
      create table tenancy_request_signatures (
        project_id varchar(26) not null,
        signature char(64) not null,
        expires_at timestamptz not null,
        primary key (project_id, signature)
      );
      create index tenancy_request_signatures_expires_at on tenancy_request_signatures (expires_at);`);
  },
};

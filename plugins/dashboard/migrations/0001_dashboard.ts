import type { Migration } from '@gw/kernel';

/**
 * Browser sessions of the operator dashboard (issue 20). A row without `user_id` is a sign-in in
 * progress (its e-mail challenge is bound to it); signing in rotates the cookie value and sets
 * `user_id`. Only the SHA-256 of the cookie value is stored. Idle and absolute timeouts are
 * checked against the database clock, so every instance agrees.
 */
export const m0001Dashboard: Migration = {
  name: '0001_dashboard',
  async up(knex) {
    await knex.raw(`
      create table dashboard_sessions (
        id varchar(26) primary key,
        token_hash char(64) not null unique,
        user_id varchar(26) null references tenancy_users (id) on delete cascade,
        challenge_id varchar(26) null,
        flash text null,
        created_at timestamptz not null default now(),
        signed_in_at timestamptz null,
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null
      );
      comment on column dashboard_sessions.token_hash is 'sha256 hex of the cookie value';
      comment on column dashboard_sessions.challenge_id is 'the open e-mail challenge of a sign-in in progress (oauth plugin)';
      comment on column dashboard_sessions.flash is 'a one-time notice shown on the next page (never a secret)';
      comment on column dashboard_sessions.expires_at is 'absolute end of the session';
      create index dashboard_sessions_user_id on dashboard_sessions (user_id);
      create index dashboard_sessions_expires_at on dashboard_sessions (expires_at);`);
  },
  async down(knex) {
    await knex.raw('drop table if exists dashboard_sessions');
  },
};

import type { Migration } from '@gw/kernel';

/**
 * Single-use forms (forms whose result shows a secret once): the nonce of each such form a session
 * has sent. A second send of the same form (a reload of the result page, a double click) finds its
 * row and changes nothing. Rows go with their session.
 */
export const m0002FormUses: Migration = {
  name: '0002_form_uses',
  async up(knex) {
    await knex.raw(`
      create table dashboard_form_uses (
        session_id varchar(26) not null references dashboard_sessions (id) on delete cascade,
        nonce varchar(32) not null,
        used_at timestamptz not null default now(),
        primary key (session_id, nonce)
      );
      comment on table dashboard_form_uses is 'nonces of the single-use forms a session has sent (a form that shows a secret acts once)';`);
  },
  async down(knex) {
    await knex.raw('drop table if exists dashboard_form_uses');
  },
};

import type { Migration } from '@gw/kernel';

/**
 * Where a sign-in in progress leads once it succeeds (a page the person opened signed out, such as
 * an application's request for an API key): a dashboard path checked when stored and again when
 * followed, kept with the session server-side (never a redirect target taken from the form).
 */
export const m0003SignInReturn: Migration = {
  name: '0003_sign_in_return',
  async up(knex) {
    await knex.raw(`
      alter table dashboard_sessions add column return_to text null;
      comment on column dashboard_sessions.return_to is 'the dashboard path (with its query) a sign-in in progress leads to once signed in';`);
  },
  async down(knex) {
    await knex.raw('alter table dashboard_sessions drop column if exists return_to');
  },
};

import type { Migration } from '@gw/kernel';

/**
 * E-mail challenges for sign-in surfaces other than the authorize pages (the operator dashboard,
 * issue 20): such a challenge belongs to a caller-chosen `binding` (the dashboard's pre-sign-in
 * session) instead of an OAuth browser session. Exactly one of the two is set.
 */
export const m0003ChallengeBinding: Migration = {
  name: '0003_challenge_binding',
  async up(knex) {
    await knex.raw(`
      alter table oauth_email_challenges alter column session_id drop not null;
      alter table oauth_email_challenges add column binding text null;
      alter table oauth_email_challenges add constraint oauth_email_challenges_owner_check check ((session_id is null) <> (binding is null));`);
  },
  async down(knex) {
    await knex.raw(`
      delete from oauth_email_challenges where session_id is null;
      alter table oauth_email_challenges drop column binding;
      alter table oauth_email_challenges alter column session_id set not null;`);
  },
};

import type { Migration } from '@gw/kernel';

/**
 * The language the payer used on a session's page (their last form post there: a pick, an e-mail
 * address, a payment link's form), so the receipt and the partial-payment notice are mailed in it.
 * Null until the payer posts a form; the mails then speak English.
 */
export const m0002SessionLocale: Migration = {
  name: '0002_session_locale',
  async up(knex) {
    await knex.raw(`
      alter table sessions_sessions add column locale text null;
      comment on column sessions_sessions.locale is 'the payer page language last used on the session (en, de, es, fr, pt, it, tr, zh): the language of its mails';`);
  },
  async down(knex) {
    await knex.raw('alter table sessions_sessions drop column if exists locale');
  },
};

import { sql, sqlQuery } from '@gw/kernel';
import { LOCALES, type Locale } from '@gw/plugin-checkout/contract';
import type { Knex } from 'knex';

/**
 * Records the language a payer used on a session's page (their last form post: a pick, an e-mail
 * address, a link's form), so the receipt and the notice are mailed in it. Every payment starts with
 * a pick, so a paid session always has one.
 */
export async function rememberPayerLocale(db: Knex, sessionId: string, locale: Locale): Promise<void> {
  await sqlQuery(db, sql`update sessions_sessions set locale = ${locale} where id = ${sessionId} and locale is distinct from ${locale}`);
}

/** The language to mail a session's payer in: the one they last used on its pages, else English. */
export async function payerLocaleOf(db: Knex, sessionId: string): Promise<Locale> {
  const [row] = await sqlQuery<{ locale: string | null }>(db, sql`select locale from sessions_sessions where id = ${sessionId}`);
  const locale = row?.locale;
  return (LOCALES as readonly string[]).includes(locale ?? '') ? (locale as Locale) : 'en';
}

/**
 * The languages payer pages speak and their message catalogues: the checkout page's own texts and
 * those of every other payer page (the sessions plugin's pages, the refund claim page) are defined
 * with {@link defineMessages}, so each speaks exactly the languages of {@link LOCALES}. English is
 * the reference; a language is complete or absent: a catalogue missing a key (or with a key English
 * lacks) does not compile, and {@link placeholderMismatches} finds a translation that lost or
 * invented a `{name}` placeholder.
 */

/** Every language of the payer pages, in the order the language switch lists them. */
export const LOCALES = ['en', 'de', 'es', 'fr', 'pt', 'it', 'tr', 'zh'] as const;
/** A language of the payer pages: `zh` is Simplified Chinese, `pt` Brazilian Portuguese. */
export type Locale = (typeof LOCALES)[number];

/** The name of each language in itself, for the language switch. */
export const LOCALE_NAMES: Readonly<Record<Locale, string>> = {
  en: 'English',
  de: 'Deutsch',
  es: 'Español',
  fr: 'Français',
  pt: 'Português',
  it: 'Italiano',
  tr: 'Türkçe',
  zh: '简体中文',
};

/** Whether `value` is one of {@link LOCALES} exactly (`pt`, not `pt-BR`: see `chooseLocale` for tags). */
export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/** Values for a text's `{name}` placeholders. */
export type MessageValues = Readonly<Record<string, string | number>>;

/** The texts of every key in every language. */
export type Catalogue<K extends string> = { readonly [L in Locale]: Readonly<Record<K, string>> };

/** The translations of an English catalogue with keys `K`: every other language, each with exactly those keys. */
export type Translations<K extends string> = { readonly [L in Exclude<Locale, 'en'>]: Readonly<Record<K, string>> };

/** A message catalogue in every language of {@link LOCALES} (made by {@link defineMessages}). */
export interface Messages<K extends string> {
  /** Every key, in the order of the English catalogue. */
  readonly keys: readonly K[];
  /** The raw texts (placeholders unfilled). */
  readonly catalogue: Catalogue<K>;
  /**
   * The text of `key` in `locale` with its `{name}` placeholders filled from `values` (a placeholder
   * without a value stays as written). The result is plain text: interpolate it with the kernel's
   * `html` template, which escapes it.
   */
  t(locale: Locale, key: K, values?: MessageValues): string;
  /** `t` bound to one language: `const t = messages.in(locale); t('title')`. */
  in(locale: Locale): (key: K, values?: MessageValues) => string;
}

const PLACEHOLDER = /\{(\w+)\}/g;

/**
 * A message catalogue from its English texts and their translations into every other language of
 * {@link LOCALES}. The type makes a missing language, a missing key and an extra key compile
 * errors; a test of the catalogue should assert `placeholderMismatches(messages)` is empty.
 *
 * ```ts
 * const MESSAGES = defineMessages({ title: 'Pay {amount}' }, { de: { title: '{amount} bezahlen' }, es: …, fr: …, pt: …, it: …, tr: …, zh: … });
 * MESSAGES.t('de', 'title', { amount: '1,5' }); // '1,5 bezahlen'
 * ```
 */
export function defineMessages<const E extends Readonly<Record<string, string>>>(
  en: E,
  translations: Translations<Extract<keyof E, string>>,
): Messages<Extract<keyof E, string>> {
  type K = Extract<keyof E, string>;
  const catalogue: Catalogue<K> = { en, ...translations };
  const t = (locale: Locale, key: K, values: MessageValues = {}): string =>
    catalogue[locale][key].replace(PLACEHOLDER, (whole, name: string) => (name in values ? String(values[name]) : whole));
  return { keys: Object.keys(en) as K[], catalogue, t, in: (locale) => (key, values) => t(locale, key, values) };
}

/**
 * The translations whose placeholders differ from the English text's (or that are missing, for a
 * catalogue built around the type): one line per difference,
 * `de.title: lacks {amount}` (the filled value would be missing) or `de.title: has {amont}, which
 * English lacks` (it would show as written). Empty when every language fills what English fills.
 */
export function placeholderMismatches<K extends string>(messages: Messages<K>): string[] {
  const names = (text: string) => new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]!));
  const problems: string[] = [];
  for (const key of messages.keys) {
    const reference = names(messages.catalogue.en[key]);
    for (const locale of LOCALES) {
      const text = messages.catalogue[locale]?.[key];
      if (typeof text !== 'string') {
        problems.push(`${locale}.${key}: missing`);
        continue;
      }
      const own = names(text);
      for (const name of reference) if (!own.has(name)) problems.push(`${locale}.${key}: lacks {${name}}`);
      for (const name of own) if (!reference.has(name)) problems.push(`${locale}.${key}: has {${name}}, which English lacks`);
    }
  }
  return problems;
}

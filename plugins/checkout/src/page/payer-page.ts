import { html, pageHeaders, type SafeHtml } from '@gw/kernel';
import type { Branding } from '../services/branding-service.js';
import { brandStylesheetPath } from './brand-stylesheet.js';
import { defineMessages, LOCALE_NAMES, LOCALES, type Locale } from './i18n.js';
import { CHECKOUT_ASSETS } from './payer-assets.js';

/**
 * The language tag of each page language in `lang`, `hreflang` and `Content-Language`: the
 * Portuguese texts are Brazilian, the Chinese ones Simplified (which also picks the right font).
 */
export const LANGUAGE_TAGS: Readonly<Record<Locale, string>> = {
  en: 'en',
  de: 'de',
  es: 'es',
  fr: 'fr',
  pt: 'pt-BR',
  it: 'it',
  tr: 'tr',
  zh: 'zh-Hans',
};

/** The shell's own words (exported for the catalogue test). */
export const SHELL_MESSAGES = defineMessages(
  { language: 'Language', sandbox_banner: 'Sandbox: this is a test payment. Do not send real money.' },
  {
    de: { language: 'Sprache', sandbox_banner: 'Sandbox: Dies ist eine Testzahlung. Senden Sie kein echtes Geld.' },
    es: { language: 'Idioma', sandbox_banner: 'Sandbox: este es un pago de prueba. No envíe dinero real.' },
    fr: { language: 'Langue', sandbox_banner: 'Sandbox\u00a0: ceci est un paiement de test. N’envoyez pas d’argent réel.' },
    pt: { language: 'Idioma', sandbox_banner: 'Sandbox: este é um pagamento de teste. Não envie dinheiro real.' },
    it: { language: 'Lingua', sandbox_banner: 'Sandbox: questo è un pagamento di prova. Non inviare denaro reale.' },
    tr: { language: 'Dil', sandbox_banner: 'Sandbox: bu bir test ödemesidir. Gerçek para göndermeyin.' },
    zh: { language: '语言', sandbox_banner: '沙盒环境：这是一笔测试付款，请勿发送真实资金。' },
  },
);
/** What a payer page is made of; only `title`, `locale`, `body` and `switchBase` are required. */
export interface PayerPageInput {
  /** The document title; a branded page appends ` · <display name>`. Plain text (escaped). */
  readonly title: string;
  /** The page's language (`chooseLocale`): `lang` of the document, the switch's current entry, the shell's words. */
  readonly locale: Locale;
  /** The page's content: everything inside `<main>` (its `<h1>` included). */
  readonly body: SafeHtml;
  /**
   * The path the language switch links to, each language as `?lang=<locale>` (`&lang=` after a
   * query): the page's own path, `/pay/<token>`. Null renders no switch (a 404 page).
   */
  readonly switchBase: string | null;
  /** The project's branding (`checkoutBranding.forProject`): logo, accent colour, display name. Absent on a page of no project. */
  readonly branding?: Branding | null | undefined;
  /** The line beside the logo, plain text ("Payment to Shop"); none when absent. */
  readonly heading?: string | undefined;
  /** Shows the sandbox banner (a test payment: send no real money). */
  readonly sandbox?: boolean | undefined;
  /** More same-origin stylesheets, after the payer pages' own (a plugin's `staticAssets` URLs). */
  readonly stylesheets?: readonly string[] | undefined;
  /**
   * Loads the payer pages' script (deferred): copy buttons (`<button class="copy" data-copy="…"
   * data-copied="…">`), the countdown (`#countdown`, `data-expires`, `data-countdown-format`) and,
   * when the body has `data-events` and `data-poll`, the checkout's live status.
   */
  readonly script?: boolean | undefined;
  /** Without JavaScript, the page reloads itself every this many seconds (a page that waits for something). */
  readonly refreshSeconds?: number | undefined;
  /** `data-*` attributes of `<body>`, by name without `data-` (lower-case letters, digits, hyphens): the script's inputs. */
  readonly data?: Readonly<Record<string, string>> | undefined;
}

const DATA_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The language switch: a navigation landmark named "Language" (in the page's language), each
 * language by its own name with its `lang` and `hreflang`, the current one `aria-current`.
 */
export function languageSwitch(locale: Locale, switchBase: string): SafeHtml {
  const joiner = switchBase.includes('?') ? '&' : '?';
  return html`<nav class="languages" aria-label="${SHELL_MESSAGES.t(locale, 'language')}"><ul>${LOCALES.map(
    (l) =>
      html`<li><a href="${switchBase}${joiner}lang=${l}" hreflang="${LANGUAGE_TAGS[l]}" lang="${LANGUAGE_TAGS[l]}"${l === locale ? html` aria-current="true"` : null}>${LOCALE_NAMES[l]}</a></li>`,
  )}</ul></nav>`;
}

/**
 * The start of a page the payer reads (the payer pages, the refund claim page): the doctype, the
 * root element in `locale`'s language, and the head's first lines (UTF-8, the phone viewport, kept
 * out of search engines). The page goes on with its title.
 */
export function payerDocumentStart(locale: Locale): SafeHtml {
  return html`<!doctype html>
<html lang="${LANGUAGE_TAGS[locale]}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">`;
}

/**
 * A whole payer page (the checkout page, the sessions plugin's pages): the document head with the
 * payer pages' stylesheet (served by the gateway, no CDN) and the project's accent colour, the
 * sandbox banner, a header with the project's logo, `heading` and the language switch, then `body`
 * as the main content. Serve it with {@link payerPageHeaders}: the page has no inline script or
 * style, so it works under that CSP, and it works without JavaScript.
 *
 * ```ts
 * const body = payerPage({ title: t('title'), locale, body: html`<h1>${t('title')}</h1>…`, switchBase: `/pay/${token}`, branding });
 * return { status: 200, headers: payerPageHeaders(locale), body };
 * ```
 */
export function payerPage(input: PayerPageInput): string {
  const { locale, branding } = input;
  const data = Object.entries(input.data ?? {}).map(([name, value]) => {
    if (!DATA_NAME.test(name)) throw new Error(`payerPage: "${name}" is not a data attribute name`);
    return html` data-${name}="${value}"`;
  });
  const brand = branding?.colour ? brandStylesheetPath(branding.colour) : undefined;
  const logo = branding?.logoDataUri ? html`<img class="logo" src="${branding.logoDataUri}" alt="${branding.displayName}">` : null;
  const heading = input.heading ? html`<p class="pay-to">${input.heading}</p>` : null;
  const languages = input.switchBase === null ? null : languageSwitch(locale, input.switchBase);
  return html`${payerDocumentStart(locale)}
<title>${input.title}${branding ? ` · ${branding.displayName}` : ''}</title>
<link rel="stylesheet" href="${CHECKOUT_ASSETS.url('checkout.css')}">
${brand ? html`<link rel="stylesheet" href="${brand}">` : null}
${(input.stylesheets ?? []).map((href) => html`<link rel="stylesheet" href="${href}">`)}
${input.script ? html`<script src="${CHECKOUT_ASSETS.url('checkout.js')}" defer></script>` : null}
${input.refreshSeconds ? html`<noscript><meta http-equiv="refresh" content="${input.refreshSeconds}"></noscript>` : null}
</head>
<body${data}>
${input.sandbox ? html`<p class="sandbox-banner" role="note">${SHELL_MESSAGES.t(locale, 'sandbox_banner')}</p>` : null}
${logo || heading || languages ? html`<header class="merchant">${logo}${heading}${languages}</header>` : null}
<main>
${input.body}
</main>
</body>
</html>
`.text;
}

/**
 * The response headers of a payer page in `locale`: the kernel's page CSP (only the gateway's own
 * scripts, styles and images, `data:` images for logos; no framing, no referrer), no caching, the
 * language, and `Vary: Accept-Language` (the language came from it unless `?lang=` chose).
 */
export function payerPageHeaders(locale: Locale): Record<string, string> {
  return { ...pageHeaders(), 'Content-Language': LANGUAGE_TAGS[locale], Vary: 'Accept-Language' };
}

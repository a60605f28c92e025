import { fileURLToPath } from 'node:url';
import { html, staticAssets, type SafeHtml } from '@gw/kernel';
import { LOCALE_NAMES, LOCALES, type Locale } from '@gw/plugin-checkout/contract';
import { payerText } from './payer-texts.js';

/** The pages' stylesheet, served by the gateway with a content hash (no CDN). */
export const PAYER_ASSETS = staticAssets('/pay-assets', [
  { name: 'payer.css', type: 'text/css; charset=utf-8', file: fileURLToPath(new URL('./payer.css', import.meta.url)) },
]);

/** One payer page: what differs between the session's, the link's and the receipt's page. */
export interface PayerFrameInput {
  readonly locale: Locale;
  /** The document's title (the merchant's name is appended). */
  readonly title: string;
  /** The page's path without query: the language switch links to `<path>?lang=<l>`. */
  readonly path: string;
  /** The merchant's name (the project's), shown in the header. */
  readonly merchant: string;
  readonly sandbox: boolean;
  /** `data-state` of the body: what the page shows (tests and styles read it). */
  readonly state: string;
  readonly main: SafeHtml;
}

/** A full payer page (server-rendered, no script): header with the merchant and the language switch, then the page's content. */
export function payerFrame(input: PayerFrameInput): string {
  const { locale, path } = input;
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${input.title} · ${input.merchant}</title>
<link rel="stylesheet" href="${PAYER_ASSETS.url('payer.css')}">
</head>
<body data-state="${input.state}">
${input.sandbox ? html`<p class="sandbox-banner" role="note">${payerText(locale, 'sandbox_banner')}</p>` : null}
<header>
<p class="pay-to">${payerText(locale, 'pay_to', { name: input.merchant })}</p>
<nav class="languages" aria-label="${payerText(locale, 'language')}"><ul>${LOCALES.map((l) => html`<li><a href="${path}?lang=${l}" hreflang="${l}" lang="${l}"${l === locale ? html` aria-current="true"` : null}>${LOCALE_NAMES[l]}</a></li>`)}</ul></nav>
</header>
<main>
${input.main}
</main>
</body>
</html>
`.text;
}

/** The plain 404 page of an unknown or malformed token: says nothing about any session, link or receipt. */
export function payerNotFoundPage(locale: Locale, what: 'not_found' | 'receipt_not_found'): string {
  return html`<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${payerText(locale, 'not_found_title')}</title><link rel="stylesheet" href="${PAYER_ASSETS.url('payer.css')}"></head>
<body><main><h1>${payerText(locale, 'not_found_title')}</h1><p>${payerText(locale, what)}</p></main></body>
</html>
`.text;
}

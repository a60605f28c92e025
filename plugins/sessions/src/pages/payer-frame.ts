import { fileURLToPath } from 'node:url';
import { html, staticAssets, type SafeHtml } from '@gw/kernel';
import { payerPage, type Branding, type Locale } from '@gw/plugin-checkout/contract';
import { payerText } from './payer-texts.js';

/** The stylesheet of what only these pages have (order lines, coin list, receipt print), after the payer pages' own; served by the gateway with a content hash. */
export const PAYER_ASSETS = staticAssets('/pay-assets', [
  { name: 'sessions.css', type: 'text/css; charset=utf-8', file: fileURLToPath(new URL('./sessions.css', import.meta.url)) },
]);

/** One page of a session, a link or a receipt: what differs between them. */
export interface PayerFrameInput {
  readonly locale: Locale;
  /** The document's title (the shell appends the merchant's name). */
  readonly title: string;
  /** The page's path without query: the language switch links to `<path>?lang=<l>`. */
  readonly path: string;
  /** The project's branding (logo, accent colour, display name: "Payment to …"). */
  readonly branding: Branding;
  readonly sandbox: boolean;
  /** `data-state` of the body: what the page shows (tests and styles read it). */
  readonly state: string;
  readonly main: SafeHtml;
}

/** A whole page in the payer pages' shell (the checkout's: stylesheet, branding, language switch); no script. */
export function payerFrame(input: PayerFrameInput): string {
  return payerPage({
    title: input.title,
    locale: input.locale,
    body: input.main,
    switchBase: input.path,
    branding: input.branding,
    heading: payerText(input.locale, 'pay_to', { name: input.branding.displayName }),
    sandbox: input.sandbox,
    stylesheets: [PAYER_ASSETS.url('sessions.css')],
    data: { state: input.state },
  });
}

/** The plain 404 page of an unknown or malformed token: says nothing about any session, link or receipt. */
export function payerNotFoundPage(locale: Locale, what: 'not_found' | 'receipt_not_found'): string {
  return payerPage({
    title: payerText(locale, 'not_found_title'),
    locale,
    body: html`<h1>${payerText(locale, 'not_found_title')}</h1><p>${payerText(locale, what)}</p>`,
    switchBase: null,
  });
}

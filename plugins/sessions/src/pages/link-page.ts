import { html, type ChainRegistry, type SafeHtml } from '@gw/kernel';
import { qrSvg, type Branding, type Locale } from '@gw/plugin-checkout/contract';
import type { PaymentLinkView } from '../contract.js';
import { orderSummary } from './order-summary.js';
import { payerFrame } from './payer-frame.js';
import { formatPrice, isFiatPrice, coinSymbol } from './payer-format.js';
import { payerErrorText, payerText, type PayerMessageKey } from './payer-texts.js';

/** What a link's page shows: its form, or why it takes no payment any more. */
export type LinkPageState = 'open' | 'inactive' | 'used_up';

export function linkPageState(link: PaymentLinkView): LinkPageState {
  if (!link.active) return 'inactive';
  return link.max_uses !== null && link.uses >= link.max_uses ? 'used_up' : 'open';
}

/** What the payer entered, shown again with a refused form. */
export interface LinkFormValues {
  readonly amount: string;
  readonly email: string;
}

/** A refused form: its error code, what was entered, and which field it concerns. */
export interface LinkPageRefusal {
  readonly code: string;
  readonly values: LinkFormValues;
  readonly field?: 'amount' | 'email' | undefined;
}

export interface LinkPageInput {
  readonly link: PaymentLinkView;
  /** The project's branding (`checkoutBranding.forProject`): its display name is the merchant's name. */
  readonly branding: Branding;
  readonly locale: Locale;
  readonly chains: ChainRegistry;
  /** The page's path (`/l/<token>`). */
  readonly path: string;
  readonly formToken: string;
  readonly refused?: LinkPageRefusal | undefined;
}

/** The words' values of the link's refusals: its limits and an example amount, formatted for the payer. */
export function linkErrorValues(locale: Locale, chains: ChainRegistry, link: PaymentLinkView): Record<string, string> {
  const price = (amount: string | null) => (amount === null ? '' : formatPrice(locale, chains, link.price_currency, amount));
  return { min: price(link.min_amount), max: price(link.max_amount), example: isFiatPrice(link.price_currency) ? '12.50' : '0.05' };
}

function linkForm(input: LinkPageInput): SafeHtml {
  const { link, locale, path, formToken, refused } = input;
  const t = (key: PayerMessageKey, values?: Record<string, string>) => payerText(locale, key, values);
  const values = refused?.values ?? { amount: '', email: '' };
  const invalid = (field: 'amount' | 'email') => (refused?.field === field ? html` aria-invalid="true"` : null);
  const describedBy = (field: 'amount' | 'email', help: string) => (refused?.field === field ? `page-error ${help}` : help);
  const limits = linkErrorValues(locale, input.chains, link);
  const currency = isFiatPrice(link.price_currency) ? link.price_currency : coinSymbol(input.chains, link.price_currency);
  return html`<form method="post" action="${path}?lang=${locale}" class="link-form" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
${
  link.price_amount === null
    ? html`<div class="field"><label for="amount">${t('amount_label', { currency })}</label>
<input id="amount" name="amount" type="text" inputmode="decimal" autocomplete="off" required maxlength="40" value="${values.amount}" aria-describedby="${describedBy('amount', 'amount-help')}"${invalid('amount')}>
<p class="help" id="amount-help">${t('amount_help', limits)}</p></div>`
    : null
}
${
  link.ask_email
    ? html`<div class="field"><label for="email">${t('link_email_label')}</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" spellcheck="false" value="${values.email}" aria-describedby="${describedBy('email', 'email-help')}"${invalid('email')}>
<p class="help" id="email-help">${t('email_help')}</p></div>`
    : null
}
<p><button type="submit" id="pay">${t('link_continue')}</button></p>
</form>`;
}

/** The public page of a payment link: each payer who sends its form gets a session of their own. */
export function linkPage(input: LinkPageInput): string {
  const { link, locale, chains } = input;
  const state = linkPageState(link);
  const name = input.branding.displayName;
  const t = (key: PayerMessageKey, values?: Record<string, string>) => payerText(locale, key, values);
  const title =
    link.price_amount === null ? t('title_pay_name', { name }) : t('title_pay', { price: formatPrice(locale, chains, link.price_currency, link.price_amount) });
  const main = html`<h1>${title}</h1>
${
  input.refused
    ? html`<div class="error" id="page-error" role="alert" tabindex="-1"><p><strong>${t('error_title')}</strong></p><p data-error-code="${input.refused.code}">${payerErrorText(locale, input.refused.code, linkErrorValues(locale, chains, link))}</p></div>`
    : null
}
${
  state === 'open'
    ? null
    : html`<section class="status state state-${state}" id="state" aria-labelledby="state-title">
<h2 id="state-title">${t(state === 'inactive' ? 'link_inactive' : 'link_used_up')}</h2>
<p>${t(state === 'inactive' ? 'link_inactive_help' : 'link_used_up_help', { name })}</p>
</section>`
}
${orderSummary({ locale, chains, currency: link.price_currency, total: link.price_amount, description: link.description, lines: link.line_items })}
${state === 'open' ? linkForm(input) : null}
${
  state === 'open'
    ? html`<figure class="qr-figure link-qr no-print">${qrSvg(link.url, t('qr_label'))}<figcaption id="qr-caption">${t('qr_caption')} <a href="${input.path}/qr.svg">${t('qr_download')}</a></figcaption></figure>`
    : null
}`;
  return payerFrame({ locale, title, path: input.path, branding: input.branding, sandbox: link.mode === 'sandbox', state, main });
}

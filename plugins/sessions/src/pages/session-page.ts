import { html, type ChainRegistry, type SafeHtml } from '@gw/kernel';
import { formatTime, type Branding, type Locale } from '@gw/plugin-checkout/contract';
import type { PayerSession } from '../contract.js';
import { orderSummary } from './order-summary.js';
import { payerFrame } from './payer-frame.js';
import { coinChoices, formatPrice, maskEmail, withLang, type CoinChoice } from './payer-format.js';
import { payerErrorText, payerText, type PayerMessageKey } from './payer-texts.js';

/** What the session's page shows: the coins to pick from, the coin picked (and the others to switch to), the receipt's link, or that it expired. */
export type SessionPageState = 'open' | 'picked' | 'completed' | 'expired';

export function sessionPageState(payer: PayerSession): SessionPageState {
  const { session } = payer;
  if (session.status !== 'open') return session.status;
  return session.invoice_id !== null && payer.checkoutUrl !== null ? 'picked' : 'open';
}

/** A refused form of the page: the error code, the words' values, and what was entered in the e-mail field. */
export interface SessionPageRefusal {
  readonly code: string;
  readonly values?: Readonly<Record<string, string>>;
  readonly email?: string;
}

export interface SessionPageInput {
  readonly payer: PayerSession;
  /** The project's branding (`checkoutBranding.forProject`): its display name is the merchant's name. */
  readonly branding: Branding;
  readonly locale: Locale;
  readonly chains: ChainRegistry;
  /** The page's path (`/pay/<token>`). */
  readonly path: string;
  /** The forms' double-submit token (`payer-csrf.ts`). */
  readonly formToken: string;
  readonly refused?: SessionPageRefusal | undefined;
}

function errorBox(locale: Locale, refused: SessionPageRefusal): SafeHtml {
  return html`<div class="error" id="page-error" role="alert" tabindex="-1"><p><strong>${payerText(locale, 'error_title')}</strong></p><p data-error-code="${refused.code}">${payerErrorText(locale, refused.code, refused.values)}</p></div>`;
}

function coinForm(input: SessionPageInput, choices: readonly CoinChoice[], current: CoinChoice | undefined): SafeHtml {
  const { locale, path, formToken } = input;
  const t = (key: PayerMessageKey, values?: Record<string, string>) => payerText(locale, key, values);
  return html`<section class="coins" aria-labelledby="coins-title">
<h2 id="coins-title">${current ? t('switch_coin') : t('choose_coin')}</h2>
<p class="help" id="coins-help">${current ? t('switch_coin_help', { symbol: current.symbol }) : t('choose_coin_help')}</p>
<form method="post" action="${withLang(`${path}/coin`, locale)}">
<input type="hidden" name="csrf" value="${formToken}">
<ul class="coin-list">
${choices.map(
  (choice) =>
    html`<li><button type="submit" name="coin" value="${choice.coin}" data-coin="${choice.coin}"${choice === current ? html` aria-current="true"` : null}><span class="symbol">${choice.symbol}</span> <span class="coin-network">${choice.network}${choice === current ? html` (${t('current_coin')})` : null}</span></button></li>`,
)}
</ul>
</form>
</section>`;
}

function emailForm(input: SessionPageInput): SafeHtml {
  const { locale, path, formToken, refused } = input;
  const known = input.payer.session.customer_email;
  const t = (key: PayerMessageKey, values?: Record<string, string>) => payerText(locale, key, values);
  if (known) return html`<p class="help" id="email-known">${t('email_known', { email: maskEmail(known) })}</p>`;
  const invalid = refused?.email !== undefined;
  return html`<section class="email" aria-labelledby="email-title">
<h2 id="email-title">${t('email_title')}</h2>
<form method="post" action="${withLang(`${path}/email`, locale)}" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
<div class="field"><label for="email">${t('email_label')}</label>
<input id="email" name="email" type="email" autocomplete="email" maxlength="254" spellcheck="false" value="${refused?.email ?? ''}" aria-describedby="${invalid ? 'page-error ' : ''}email-help"${invalid ? html` aria-invalid="true"` : null}>
<p class="help" id="email-help">${t('email_help')}</p></div>
<p><button type="submit" class="secondary">${t('email_save')}</button></p>
</form>
</section>`;
}

/** The page of one checkout session (server-rendered; no script: every action is a form, every state a full page). */
export function sessionPage(input: SessionPageInput): string {
  const { payer, locale, chains } = input;
  const { session } = payer;
  const state = sessionPageState(payer);
  const name = input.branding.displayName;
  const t = (key: PayerMessageKey, values?: Record<string, string>) => payerText(locale, key, values);
  const price = formatPrice(locale, chains, session.price_currency, session.price_amount);
  const choices = coinChoices(chains, session.allowed_coins, session.mode);
  const current = state === 'picked' ? choices.find((choice) => choice.coin === session.coin) : undefined;
  const title = t('title_pay', { price });
  const main = html`<h1>${title}</h1>
${input.refused ? errorBox(locale, input.refused) : null}
${
  state === 'picked'
    ? html`<section class="status state state-picked" id="state" aria-labelledby="state-title">
<h2 id="state-title">${current ? t('picked', { symbol: current.symbol, network: current.network }) : t('continue_payment')}</h2>
<p>${t('picked_help')}</p>
<p><a class="button" id="continue" href="${withLang(payer.checkoutUrl ?? '', locale)}">${t('continue_payment')}</a></p>
</section>`
    : state === 'completed'
      ? html`<section class="status state state-completed" id="state" aria-labelledby="state-title">
<h2 id="state-title">${t('state_completed')}</h2>
<p>${t('state_completed_help')}</p>
${session.receipt_url ? html`<p><a class="button" id="receipt-link" href="${withLang(session.receipt_url, locale)}">${t('view_receipt')}</a></p>` : null}
${session.return_url ? html`<p><a id="return-link" href="${session.return_url}">${t('return', { name })}</a></p>` : null}
</section>`
      : state === 'expired'
        ? html`<section class="status state state-expired" id="state" aria-labelledby="state-title">
<h2 id="state-title">${t('state_expired')}</h2>
<p>${t('state_expired_help')}</p>
${session.cancel_url ? html`<p><a id="cancel-link" href="${session.cancel_url}">${t('return', { name })}</a></p>` : null}
</section>`
        : null
}
${orderSummary({ locale, chains, currency: session.price_currency, total: session.price_amount, description: session.description, lines: session.line_items })}
${state === 'open' || state === 'picked' ? coinForm(input, choices, current) : null}
${state === 'open' || state === 'picked' ? emailForm(input) : null}
${state === 'open' || state === 'picked' ? html`<p class="expiry">${t('expires_at', { time: formatTime(locale, new Date(session.expires_at_iso)) })}</p>` : null}
${(state === 'open' || state === 'picked') && session.cancel_url ? html`<p><a class="cancel" id="cancel-link" href="${session.cancel_url}">${t('cancel', { name })}</a></p>` : null}`;
  return payerFrame({ locale, title, path: input.path, branding: input.branding, sandbox: session.mode === 'sandbox', state, main });
}

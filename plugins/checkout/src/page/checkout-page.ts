import { fromBaseUnits, html, networkFor, tokenContractFor, type ChainRegistry, type ProjectKind, type SafeHtml } from '@gw/kernel';
import { invoicePaymentUri, type InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutPanel } from '../panels.js';
import type { Branding } from '../services/branding-service.js';
import { CHECKOUT_MESSAGES, type CheckoutMessageKey } from './checkout-messages.js';
import { formatDecimal, formatPrice, formatTime, usdAmountString } from './formatting.js';
import type { Locale } from './i18n.js';
import { payerPage } from './payer-page.js';
import { payerStatus, RETURN_STATUSES, type PayerStatus } from './payer-status.js';
import { qrSvg } from './qr-code.js';

/** What a page of one invoice is rendered from. */
export interface CheckoutPageInput {
  readonly token: string;
  readonly invoice: InvoiceView;
  readonly projectKind: ProjectKind;
  readonly branding: Branding;
  readonly locale: Locale;
  readonly chains: ChainRegistry;
  readonly returnDelaySeconds: number;
  /** The panels other plugins contribute that show on this invoice (the sandbox's simulations). */
  readonly panels: readonly CheckoutPanel[];
  /** A refused panel action's error code, shown once by the panels. */
  readonly panelError?: string | undefined;
  /** The panel forms' double-submit token (`simulation-csrf.ts`). */
  readonly panelToken?: string | undefined;
}

/** The coin as the payer must send it: symbol, network name (it names the chain: "Ethereum Sepolia"), token contract, decimals, memo. */
export function coinFacts(chains: ChainRegistry, invoice: InvoiceView, kind: ProjectKind) {
  const { adapter, coin } = chains.coin(invoice.coin);
  const network = networkFor(adapter.definition, kind);
  return {
    symbol: coin.symbol,
    decimals: coin.decimals,
    chainName: adapter.definition.name,
    networkName: network.name,
    contract: tokenContractFor(adapter.definition, coin, kind),
    memo: adapter.definition.capabilities.supportsMemo ? invoice.payment_token : null,
  };
}

/** The status region's content: what the status stream sends and the page starts with. */
export function statusFragment(locale: Locale, status: PayerStatus, invoice: InvoiceView, branding: Branding, symbol: string, page: string): SafeHtml {
  const t = CHECKOUT_MESSAGES.in(locale);
  const name = branding.displayName;
  const help = t(`status_${status.status}_help` as CheckoutMessageKey, {
    name,
    confirmations: status.confirmations,
    threshold: status.threshold,
    remainder: status.remainder ? formatDecimal(locale, status.remainder) : '',
    symbol,
  });
  const goesBack = RETURN_STATUSES.includes(status.status) && invoice.return_url;
  return html`<h2 id="status-title" class="status-title status-${status.status}">${t(`status_${status.status}` as CheckoutMessageKey)}</h2>
<p>${help}</p>
${status.status === 'detected' && status.threshold > 0 ? html`<progress max="${status.threshold}" value="${Math.min(status.confirmations, status.threshold)}" aria-labelledby="status-title">${status.confirmations}/${status.threshold}</progress>` : null}
${status.remainder ? html`<p class="copyable"><label for="remainder">${t('remainder')} (${symbol})</label><input id="remainder" readonly value="${status.remainder}"><button type="button" class="copy" data-copy="${status.remainder}" data-copied="${t('copied')}">${t('copy')}</button></p>` : null}
${goesBack ? html`<p><a class="button" id="return-link" href="${invoice.return_url}">${t('return', { name })}</a></p>` : null}
${status.final ? null : html`<p class="nojs-only"><a href="${page}">${t('refresh')}</a></p>`}`;
}

/**
 * The payment request region: the QR code and the wallet link, both for what is still due (after a
 * partial payment the remainder, not the invoiced amount), with the amount they ask for written
 * out. Empty while the payments seen cover the amount. The status stream sends it with every change.
 */
export function paymentRequestFragment(chains: ChainRegistry, locale: Locale, invoice: InvoiceView, kind: ProjectKind, status: PayerStatus): SafeHtml {
  if (status.dueUnits <= 0n) return html``;
  const { adapter, coin } = chains.coin(invoice.coin);
  const t = CHECKOUT_MESSAGES.in(locale);
  const uri = invoicePaymentUri(adapter, invoice, kind, status.dueUnits);
  const amount = formatDecimal(locale, fromBaseUnits(status.dueUnits, coin.decimals));
  return html`<figure class="qr-figure">${qrSvg(uri, t('qr_label'))}<figcaption id="request-caption">${t('request_caption', { amount, symbol: coin.symbol })}</figcaption></figure>
<p class="wallet-link"><a class="button" id="wallet-link" href="${uri}" aria-describedby="request-caption">${t('open_wallet')}</a></p>`;
}

/** The fiat price an invoice was created with (issue 38: `price_currency`, `price_amount`); null, or absent before the invoices plugin records them. */
interface FiatPrice {
  readonly price_currency?: string | null;
  readonly price_amount?: string | null;
}

/**
 * What the amount is worth in money people count in: the invoice's price in its price currency
 * ("Price: 12.50 EUR") when it was created with one, else its USD value ("about 12.50 USD"), else
 * nothing (an invoice in a coin without a rate).
 */
export function fiatLine(locale: Locale, invoice: InvoiceView & FiatPrice): SafeHtml | null {
  const t = CHECKOUT_MESSAGES.in(locale);
  if (invoice.price_currency && invoice.price_amount) {
    return html`<p class="fiat" id="price">${t('price_value', { price: formatPrice(locale, invoice.price_amount, invoice.price_currency) })}</p>`;
  }
  if (invoice.amount_usd === null) return null;
  return html`<p class="fiat" id="price">${t('usd_value', { price: formatPrice(locale, usdAmountString(invoice.amount_usd), 'USD') })}</p>`;
}

/** The checkout page of one invoice (server-rendered; the script only adds live status, copy buttons and the countdown). */
export async function checkoutPage(input: CheckoutPageInput): Promise<string> {
  const { invoice, locale, branding, token } = input;
  const t = CHECKOUT_MESSAGES.in(locale);
  const facts = coinFacts(input.chains, invoice, input.projectKind);
  const status = payerStatus(invoice, facts.decimals);
  const base = `/checkout/${token}`;
  const page = `${base}?lang=${locale}`;
  const waiting = !status.final;
  const name = branding.displayName;
  const amount = formatDecimal(locale, invoice.amount_crypto);
  // A settled, expired or cancelled invoice's page carries no address, QR code or payment URI
  // (issue 33 finding 19): nothing on it invites a payment that would only arrive late.
  const request = waiting ? paymentRequestFragment(input.chains, locale, invoice, input.projectKind, status) : null;
  const panels = await Promise.all(
    input.panels.map((panel) =>
      panel.render({
        invoice,
        projectKind: input.projectKind,
        locale,
        status: status.status,
        base,
        formToken: input.panelToken ?? '',
        error: input.panelError,
      }),
    ),
  );
  const body = html`<h1>${t('title', { amount, symbol: facts.symbol })}</h1>
<section class="status" id="status" role="status" aria-live="polite" aria-atomic="true">
${statusFragment(locale, status, invoice, branding, facts.symbol, page)}
</section>
<section class="payment" aria-label="${t('address')}">
<div class="copyable"><label for="amount">${t('amount')} (${facts.symbol})</label><input id="amount" readonly value="${invoice.amount_crypto}"><button type="button" class="copy" data-copy="${invoice.amount_crypto}" data-copied="${t('copied')}">${t('copy')}</button></div>
${fiatLine(locale, invoice)}
<dl class="network">
<dt>${t('coin_network')}</dt><dd><strong>${facts.symbol}</strong> · ${facts.networkName}</dd>
${facts.contract ? html`<dt>${t('token_contract')}</dt><dd><code class="contract">${facts.contract}</code></dd>` : null}
</dl>
<p class="warning">${t('network_warning', { symbol: facts.symbol, network: facts.networkName })}</p>
${
  waiting
    ? html`<div id="payment-request" class="payment-request">${request}</div>
<div class="copyable"><label for="address">${t('address')}</label><textarea id="address" readonly rows="2" spellcheck="false">${invoice.address}</textarea><button type="button" class="copy" data-copy="${invoice.address}" data-copied="${t('copied')}">${t('copy')}</button></div>
${facts.memo ? html`<div class="copyable"><label for="memo">${t('memo')}</label><input id="memo" readonly value="${facts.memo}" aria-describedby="memo-help"><button type="button" class="copy" data-copy="${facts.memo}" data-copied="${t('copied')}">${t('copy')}</button><p id="memo-help" class="help">${t('memo_help')}</p></div>` : null}`
    : null
}
<p class="expiry">${t('expires_at', { time: formatTime(locale, new Date(invoice.expires_at_iso)) })} <span class="countdown" id="countdown" hidden></span></p>
${waiting && invoice.cancel_url ? html`<p><a class="cancel" href="${invoice.cancel_url}">${t('cancel', { name })}</a></p>` : null}
</section>
${panels}`;
  return payerPage({
    title: t('title', { amount, symbol: facts.symbol }),
    locale,
    body,
    switchBase: base,
    branding,
    heading: t('pay_to', { name }),
    sandbox: input.projectKind === 'sandbox',
    script: true,
    refreshSeconds: waiting ? 15 : undefined,
    data: {
      status: status.status,
      key: status.key,
      final: String(status.final),
      events: `${base}/events?lang=${locale}`,
      poll: `${base}/status?lang=${locale}`,
      expires: invoice.expires_at_iso,
      return: RETURN_STATUSES.includes(status.status) ? (invoice.return_url ?? '') : '',
      'return-url': invoice.return_url ?? '',
      'return-delay': String(input.returnDelaySeconds),
      'countdown-format': t('minutes_seconds'),
    },
  });
}

/** The plain 404 page of an unknown or malformed token: says nothing about any invoice. */
export function notFoundPage(locale: Locale): string {
  const t = CHECKOUT_MESSAGES.in(locale);
  return payerPage({ title: t('not_found_title'), locale, body: html`<h1>${t('not_found_title')}</h1><p>${t('not_found')}</p>`, switchBase: null });
}

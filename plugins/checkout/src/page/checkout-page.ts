import { fromBaseUnits, html, networkFor, tokenContractFor, type ChainRegistry, type ProjectKind, type SafeHtml, type StaticAssets } from '@gw/kernel';
import { invoicePaymentUri, type InvoiceView } from '@gw/plugin-invoices/contract';
import type { CheckoutPanel } from '../panels.js';
import type { Branding } from '../services/branding-service.js';
import { formatDecimal, formatTime, formatUsd, LOCALE_NAMES, LOCALES, t, type Locale, type MessageKey } from './i18n.js';
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
  readonly assets: StaticAssets;
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
  const name = branding.displayName;
  const help = t(locale, `status_${status.status}_help` as MessageKey, {
    name,
    confirmations: status.confirmations,
    threshold: status.threshold,
    remainder: status.remainder ? formatDecimal(locale, status.remainder) : '',
    symbol,
  });
  const goesBack = RETURN_STATUSES.includes(status.status) && invoice.return_url;
  return html`<h2 id="status-title" class="status-title status-${status.status}">${t(locale, `status_${status.status}` as MessageKey)}</h2>
<p>${help}</p>
${status.status === 'detected' && status.threshold > 0 ? html`<progress max="${status.threshold}" value="${Math.min(status.confirmations, status.threshold)}" aria-labelledby="status-title">${status.confirmations}/${status.threshold}</progress>` : null}
${status.remainder ? html`<p class="copyable"><label for="remainder">${t(locale, 'remainder')} (${symbol})</label><input id="remainder" readonly value="${status.remainder}"><button type="button" class="copy" data-copy="${status.remainder}" data-copied="${t(locale, 'copied')}">${t(locale, 'copy')}</button></p>` : null}
${goesBack ? html`<p><a class="button" id="return-link" href="${invoice.return_url}">${t(locale, 'return', { name })}</a></p>` : null}
${status.final ? null : html`<p class="nojs-only"><a href="${page}">${t(locale, 'refresh')}</a></p>`}`;
}

/**
 * The payment request region: the QR code and the wallet link, both for what is still due (after a
 * partial payment the remainder, not the invoiced amount), with the amount they ask for written
 * out. Empty while the payments seen cover the amount. The status stream sends it with every change.
 */
export function paymentRequestFragment(chains: ChainRegistry, locale: Locale, invoice: InvoiceView, kind: ProjectKind, status: PayerStatus): SafeHtml {
  if (status.dueUnits <= 0n) return html``;
  const { adapter, coin } = chains.coin(invoice.coin);
  const uri = invoicePaymentUri(adapter, invoice, kind, status.dueUnits);
  const amount = formatDecimal(locale, fromBaseUnits(status.dueUnits, coin.decimals));
  return html`<figure class="qr-figure">${qrSvg(uri, t(locale, 'qr_label'))}<figcaption id="request-caption">${t(locale, 'request_caption', { amount, symbol: coin.symbol })}</figcaption></figure>
<p class="wallet-link"><a class="button" id="wallet-link" href="${uri}" aria-describedby="request-caption">${t(locale, 'open_wallet')}</a></p>`;
}

/** The checkout page of one invoice (server-rendered; the script only adds live status, copy buttons and the countdown). */
export async function checkoutPage(input: CheckoutPageInput): Promise<string> {
  const { invoice, locale, branding, assets, token } = input;
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
  const sandbox = input.projectKind === 'sandbox';
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
  const body = html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${t(locale, 'title', { amount, symbol: facts.symbol })} · ${name}</title>
<link rel="stylesheet" href="${assets.url('checkout.css')}">
${branding.colour ? html`<link rel="stylesheet" href="${base}/brand.css?c=${branding.colour.slice(1)}">` : null}
<script src="${assets.url('checkout.js')}" defer></script>
${waiting ? html`<noscript><meta http-equiv="refresh" content="15"></noscript>` : null}
</head>
<body data-status="${status.status}" data-key="${status.key}" data-final="${String(status.final)}" data-events="${base}/events?lang=${locale}" data-poll="${base}/status?lang=${locale}"
 data-expires="${invoice.expires_at_iso}" data-return="${RETURN_STATUSES.includes(status.status) ? (invoice.return_url ?? '') : ''}" data-return-url="${invoice.return_url ?? ''}" data-return-delay="${input.returnDelaySeconds}" data-countdown-format="${t(locale, 'minutes_seconds')}">
${sandbox ? html`<p class="sandbox-banner" role="note">${t(locale, 'sandbox_banner')}</p>` : null}
<header class="merchant">
${branding.logoDataUri ? html`<img class="logo" src="${branding.logoDataUri}" alt="${name}">` : null}
<p class="pay-to">${t(locale, 'pay_to', { name })}</p>
<nav class="languages" aria-label="${t(locale, 'language')}"><ul>${LOCALES.map((l) => html`<li><a href="${base}?lang=${l}" hreflang="${l}" lang="${l}"${l === locale ? html` aria-current="true"` : null}>${LOCALE_NAMES[l]}</a></li>`)}</ul></nav>
</header>
<main>
<h1>${t(locale, 'title', { amount, symbol: facts.symbol })}</h1>
<section class="status" id="status" role="status" aria-live="polite" aria-atomic="true">
${statusFragment(locale, status, invoice, branding, facts.symbol, page)}
</section>
<section class="payment" aria-label="${t(locale, 'address')}">
<div class="copyable"><label for="amount">${t(locale, 'amount')} (${facts.symbol})</label><input id="amount" readonly value="${invoice.amount_crypto}"><button type="button" class="copy" data-copy="${invoice.amount_crypto}" data-copied="${t(locale, 'copied')}">${t(locale, 'copy')}</button></div>
${invoice.amount_usd !== null ? html`<p class="usd">${t(locale, 'usd_value', { usd: formatUsd(locale, invoice.amount_usd) })}</p>` : null}
<dl class="network">
<dt>${t(locale, 'coin_network')}</dt><dd><strong>${facts.symbol}</strong> · ${facts.networkName}</dd>
${facts.contract ? html`<dt>${t(locale, 'token_contract')}</dt><dd><code class="contract">${facts.contract}</code></dd>` : null}
</dl>
<p class="warning">${t(locale, 'network_warning', { symbol: facts.symbol, network: facts.networkName })}</p>
${
  waiting
    ? html`<div id="payment-request" class="payment-request">${request}</div>
<div class="copyable"><label for="address">${t(locale, 'address')}</label><textarea id="address" readonly rows="2" spellcheck="false">${invoice.address}</textarea><button type="button" class="copy" data-copy="${invoice.address}" data-copied="${t(locale, 'copied')}">${t(locale, 'copy')}</button></div>
${facts.memo ? html`<div class="copyable"><label for="memo">${t(locale, 'memo')}</label><input id="memo" readonly value="${facts.memo}" aria-describedby="memo-help"><button type="button" class="copy" data-copy="${facts.memo}" data-copied="${t(locale, 'copied')}">${t(locale, 'copy')}</button><p id="memo-help" class="help">${t(locale, 'memo_help')}</p></div>` : null}`
    : null
}
<p class="expiry">${t(locale, 'expires_at', { time: formatTime(locale, new Date(invoice.expires_at_iso)) })} <span class="countdown" id="countdown" hidden></span></p>
${waiting && invoice.cancel_url ? html`<p><a class="cancel" href="${invoice.cancel_url}">${t(locale, 'cancel', { name })}</a></p>` : null}
</section>
${panels}
</main>
</body>
</html>
`;
  return body.text;
}

/** The plain 404 page of an unknown or malformed token: says nothing about any invoice. */
export function notFoundPage(locale: Locale, assets: StaticAssets): string {
  return html`<!doctype html>
<html lang="${locale}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${t(locale, 'not_found_title')}</title><link rel="stylesheet" href="${assets.url('checkout.css')}"></head>
<body><main><h1>${t(locale, 'not_found_title')}</h1><p>${t(locale, 'not_found')}</p></main></body>
</html>
`.text;
}

/** The accent colour stylesheet of a project (the page's CSP allows no inline style). */
export function brandStylesheet(colour: string): string {
  const r = parseInt(colour.slice(1, 3), 16) / 255;
  const g = parseInt(colour.slice(3, 5), 16) / 255;
  const b = parseInt(colour.slice(5, 7), 16) / 255;
  const lin = (c: number) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  const luminance = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  // Text on the accent: whichever of black and white contrasts more (WCAG relative luminance).
  const onAccent = (luminance + 0.05) / 0.05 > 1.05 / (luminance + 0.05) ? '#000000' : '#ffffff';
  return `:root{--accent:${colour};--on-accent:${onAccent}}\n`;
}

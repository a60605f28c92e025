import { html, type ChainRegistry, type SafeHtml, type StaticAssets } from '@gw/kernel';
import { formatDecimal, LANGUAGE_TAGS, languageSwitch, type Locale, payerDocumentStart } from '@gw/plugin-checkout/contract';
import { claimProofMessage, type ClaimView, type ItemView } from '../contract.js';
import type { ItemStatus } from '../item-status.js';
import { claimErrorText, claimText, type ClaimMessageKey } from './claim-i18n.js';

/** What the payer sees of a refund, by its status. */
export type ClaimState = 'open' | 'claimed' | 'approved' | 'sent' | 'completed' | 'cancelled' | 'failed';

const STATE_OF: Readonly<Record<ItemStatus, ClaimState>> = {
  awaiting_claim: 'open',
  claimed: 'claimed',
  pending_approval: 'claimed',
  approved: 'approved',
  batched: 'approved',
  sent: 'sent',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** The state the page shows: `open` only while the refund still takes a claim. */
export function claimState(view: ClaimView): ClaimState {
  const state = STATE_OF[view.item.status];
  return state === 'open' && !view.open ? 'cancelled' : state;
}

/** How the payer's wallet signs a message on the refund's chain (the form {@link AddressSignatureProof} names). */
type SignatureFamily = 'utxo' | 'evm' | 'tron' | 'ada' | 'ton' | 'sol' | 'other';

/** The coin and network as the payer must give an address for them. */
export interface CoinFacts {
  readonly symbol: string;
  readonly networkName: string;
  readonly family: SignatureFamily;
}

/** Symbol, network name and signature family of an item's coin; the stored ids for a chain disabled since. */
export function claimCoinFacts(chains: ChainRegistry, item: ItemView): CoinFacts {
  const symbol = chains.knownCoin(item.coin)?.symbol ?? item.coin.toUpperCase();
  if (!chains.has(item.chain)) return { symbol, networkName: item.network, family: 'other' };
  const definition = chains.get(item.chain).definition;
  const networks = [definition.networks.mainnet, ...definition.networks.testnets];
  const network = networks.find((n) => n.id === item.network) ?? networks.find((n) => n.kind === item.network);
  const family: SignatureFamily =
    item.chain === 'btc' || item.chain === 'ltc'
      ? 'utxo'
      : item.chain === 'tron' || item.chain === 'ada' || item.chain === 'ton' || item.chain === 'sol'
        ? item.chain
        : network?.evmChainId !== undefined
          ? 'evm'
          : 'other';
  return { symbol, networkName: network?.name ?? item.network, family };
}

/** What the payer entered, shown again with a refused claim. */
export interface ClaimFormValues {
  readonly address: string;
  readonly addressConfirmation: string;
  readonly signature: string;
}

export interface ClaimPageInput {
  readonly view: ClaimView;
  readonly locale: Locale;
  readonly facts: CoinFacts;
  readonly assets: StaticAssets;
  /** The page's path (`/refunds/claim/<token>`). */
  readonly base: string;
  /** The form's double-submit token (`claim-csrf.ts`). */
  readonly formToken: string;
  /** A refused claim: its error code and what was entered. */
  readonly refused?: { readonly code: string; readonly values: ClaimFormValues } | undefined;
}

/**
 * The text a proof signs for `address` (it names the address it pays to); before an address is
 * entered, the message with a placeholder where the address goes.
 */
export function proofMessageFor(view: ClaimView, address: string): string {
  return claimProofMessage(view.item.id, view.externalId, address || '<address>');
}

function facts(locale: Locale, view: ClaimView, coin: CoinFacts): SafeHtml {
  const item = view.item;
  const t = (key: ClaimMessageKey) => claimText(locale, key);
  return html`<dl class="facts">
<dt>${t('project')}</dt><dd id="project-name">${view.projectName}</dd>
<dt>${t('invoice')}</dt><dd id="external-id" class="mono">${view.externalId}</dd>
<dt>${t('amount')}</dt><dd id="amount"><strong>${formatDecimal(locale, item.amount)} ${coin.symbol}</strong></dd>
<dt>${t('coin_network')}</dt><dd id="coin-network"><strong>${coin.symbol}</strong> · ${coin.networkName}</dd>
${item.address ? html`<dt>${t('paid_to')}</dt><dd id="paid-to" class="mono">${item.address}</dd>` : null}
${item.txid ? html`<dt>${t('txid')}</dt><dd id="txid" class="mono">${item.txid}</dd>` : null}
</dl>`;
}

function claimForm(input: ClaimPageInput): SafeHtml {
  const { view, locale, facts: coin, base, formToken, refused } = input;
  const values = refused?.values ?? { address: '', addressConfirmation: '', signature: '' };
  const words = { symbol: coin.symbol, network: coin.networkName, name: view.projectName };
  const t = (key: ClaimMessageKey) => claimText(locale, key, words);
  const describedBy = (...ids: (string | false)[]) => ids.filter(Boolean).join(' ');
  const invalid = refused ? html` aria-invalid="true"` : null;
  const errorId = refused ? 'claim-error' : false;
  return html`<form method="post" action="${base}?lang=${locale}" class="claim" novalidate>
<input type="hidden" name="csrf" value="${formToken}">
${refused ? html`<div class="error" id="claim-error" role="alert" tabindex="-1"><p><strong>${t('error_title')}</strong></p><p data-error-code="${refused.code}">${claimErrorText(locale, refused.code, words)}</p></div>` : null}
<p class="warning" id="network-warning">${t('network_warning')}</p>
<div class="field"><label for="address">${t('address')}</label>
<input id="address" name="address" type="text" required maxlength="200" autocomplete="off" autocapitalize="none" spellcheck="false" value="${values.address}" aria-describedby="${describedBy(errorId, 'network-warning')}"${invalid}></div>
<div class="field"><label for="address_confirmation">${t('address_confirmation')}</label>
<input id="address_confirmation" name="address_confirmation" type="text" required maxlength="200" autocomplete="off" autocapitalize="none" spellcheck="false" value="${values.addressConfirmation}" aria-describedby="${describedBy(errorId, 'confirmation-help')}"${invalid}>
<p class="help" id="confirmation-help">${t('address_confirmation_help')}</p></div>
${
  view.item.claim_requires_proof
    ? html`<fieldset class="proof"><legend>${t('proof_title')}</legend>
<p class="help">${t('proof_help')}</p>
<p><strong>${t('proof_message')}</strong></p>
<pre class="message" id="proof-message">${proofMessageFor(view, values.address)}</pre>
<div class="field"><label for="signature">${t('signature')}</label>
<textarea id="signature" name="signature" rows="3" maxlength="2000" autocomplete="off" spellcheck="false" aria-describedby="${describedBy(errorId, 'signature-help')}">${values.signature}</textarea>
<p class="help" id="signature-help">${t(`hint_${coin.family}`)}</p></div>
</fieldset>`
    : null
}
<p><button type="submit">${t('submit')}</button></p>
</form>`;
}

/** The claim page of one refund (server-rendered; no script). */
export function claimPage(input: ClaimPageInput): string {
  const { view, locale, assets, base } = input;
  const state = claimState(view);
  const words = { name: view.projectName };
  const t = (key: ClaimMessageKey) => claimText(locale, key, words);
  return html`${payerDocumentStart(locale)}
<title>${t('title')} · ${view.projectName}</title>
<link rel="stylesheet" href="${assets.url('claim.css')}">
</head>
<body data-state="${state}">
<header>
<p class="refund-from">${t('refund_from')}</p>
${languageSwitch(locale, base)}
</header>
<main>
<h1>${t('title')}</h1>
<section class="state" id="state" aria-labelledby="state-title">
<h2 id="state-title" class="state-${state}">${t(`state_${state}`)}</h2>
<p>${t(`state_${state}_help`)}</p>
</section>
${facts(locale, view, input.facts)}
${state === 'open' ? claimForm(input) : input.refused ? html`<p class="error" role="alert" data-error-code="${input.refused.code}">${claimErrorText(locale, input.refused.code, { name: view.projectName, symbol: input.facts.symbol, network: input.facts.networkName })}</p>` : null}
</main>
</body>
</html>
`.text;
}

/** The plain 404 page of an unknown or malformed token: says nothing about any refund. */
export function claimNotFoundPage(locale: Locale, assets: StaticAssets): string {
  return html`<!doctype html>
<html lang="${LANGUAGE_TAGS[locale]}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${claimText(locale, 'not_found_title')}</title><link rel="stylesheet" href="${assets.url('claim.css')}"></head>
<body><main><h1>${claimText(locale, 'not_found_title')}</h1><p>${claimText(locale, 'not_found')}</p></main></body>
</html>
`.text;
}

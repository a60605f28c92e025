import { fromBaseUnits, html, type ChainRegistry } from '@gw/kernel';
import { formatDecimal, formatTime, type Branding, type Locale } from '@gw/plugin-checkout/contract';
import { PAID_STATUSES, type InvoiceView } from '@gw/plugin-invoices/contract';
import type { PayerSession } from '../contract.js';
import { orderSummary } from './order-summary.js';
import { payerFrame } from './payer-frame.js';
import { invoiceCoin, receivedUnits } from './payer-format.js';
import { payerText, type PayerMessageKey } from './payer-texts.js';

/** One payment a receipt lists: an invoice of the session that was paid. */
export interface ReceiptPayment {
  readonly invoiceId: string;
  readonly symbol: string;
  readonly network: string;
  /** What arrived (the payments that count), a decimal string in the coin. */
  readonly amount: string;
  readonly txids: readonly string[];
  /** Credited after the payer had switched away from its coin. */
  readonly late: boolean;
}

/**
 * The payments of a completed session: its paid invoices (paid, overpaid, paid after expiry), each
 * with what arrived and the transactions that brought it. `invoices` are the fresh views of the
 * session's invoices.
 */
export function receiptPayments(chains: ChainRegistry, payer: PayerSession, invoices: ReadonlyMap<string, InvoiceView>): ReceiptPayment[] {
  const { session } = payer;
  const payments: ReceiptPayment[] = [];
  for (const entry of session.invoices) {
    const invoice = invoices.get(entry.invoice_id);
    if (!invoice || !PAID_STATUSES.includes(invoice.status)) continue;
    const counted = invoice.transactions.filter((tx) => tx.status === 'pending' || tx.status === 'confirmed');
    const decimals = chains.storedCoin(invoice.coin).decimals;
    payments.push({
      invoiceId: invoice.id,
      ...invoiceCoin(chains, invoice.coin, session.mode),
      amount: fromBaseUnits(receivedUnits(invoice), decimals),
      txids: [...new Set(counted.map((tx) => tx.tx_hash))],
      late: entry.late,
    });
  }
  return payments;
}

export interface ReceiptPageInput {
  readonly payer: PayerSession;
  readonly payments: readonly ReceiptPayment[];
  /** The project's branding (`checkoutBranding.forProject`): its display name is the merchant's name. */
  readonly branding: Branding;
  readonly locale: Locale;
  readonly chains: ChainRegistry;
  /** The page's path (`/receipts/<token>`). */
  readonly path: string;
}

/** The public receipt of a completed session: printable (`@media print` in the stylesheet), no forms, no script. */
export function receiptPage(input: ReceiptPageInput): string {
  const { payer, locale, chains } = input;
  const { session } = payer;
  const name = input.branding.displayName;
  const t = (key: PayerMessageKey, values?: Record<string, string>) => payerText(locale, key, values);
  const title = t('receipt_from', { name });
  const main = html`<h1>${t('receipt_title')}</h1>
<p class="print-hint">${t('receipt_print')}</p>
<dl class="facts">
<dt>${t('receipt_merchant')}</dt><dd id="merchant">${name}</dd>
<dt>${t('receipt_date')}</dt><dd id="paid-at">${session.completed_at_iso ? formatTime(locale, new Date(session.completed_at_iso)) : ''}</dd>
<dt>${t('receipt_reference')}</dt><dd id="reference" class="mono">${session.id}</dd>
${session.external_id ? html`<dt>${t('receipt_order_reference')}</dt><dd id="order-reference" class="mono">${session.external_id}</dd>` : null}
</dl>
${orderSummary({ locale, chains, currency: session.price_currency, total: session.price_amount, description: session.description, lines: session.line_items })}
${input.payments.map(
  (payment, index) => html`<section class="paid-with" aria-labelledby="payment-title-${index}">
<h2 id="payment-title-${index}">${t('receipt_payment')}</h2>
<dl class="facts">
<dt>${t('receipt_coin')}</dt><dd class="payment-coin"><strong>${payment.symbol}</strong>${payment.network ? html` · ${payment.network}` : null}</dd>
<dt>${t('receipt_amount')}</dt><dd class="payment-amount">${formatDecimal(locale, payment.amount)} ${payment.symbol}</dd>
${
  payment.txids.length > 0
    ? html`<dt>${t('receipt_transactions')}</dt><dd><ul class="txids">${payment.txids.map((txid) => html`<li class="mono txid">${txid}</li>`)}</ul></dd>`
    : null
}
</dl>
${payment.late ? html`<p class="help">${t('receipt_late')}</p>` : null}
</section>`,
)}`;
  return payerFrame({ locale, title, path: input.path, branding: input.branding, sandbox: session.mode === 'sandbox', state: 'receipt', main });
}

import { fromBaseUnits, type ChainRegistry } from '@gw/kernel';
import type { Static } from 'typebox';
import type { InvoiceTransaction } from '../models/invoice-transaction.js';
import type { Invoice } from '../models/invoice.js';
import type { InvoiceTransactionSchema, InvoiceWithTransactionsSchema } from '../schemas.js';
import type { CheckoutLinks } from './checkout-links.js';
import { NO_TOLERANCE } from './policy-service.js';

/** The API representation of an invoice (spec 2.1), always with `transactions` and `confirmations`. */
export type InvoiceView = Static<typeof InvoiceWithTransactionsSchema>;
export type InvoiceTransactionView = Static<typeof InvoiceTransactionSchema>;

const seconds = (date: Date): number => Math.floor(date.getTime() / 1000);

/**
 * Transactions an invoice view carries at most: the latest ones (issue 33, finding 11: a body with
 * every transfer of a flooded invoice outgrew what receivers accept). `transactions_total` counts
 * them all and `transactions_url` pages through them all.
 */
export const TRANSACTIONS_SHOWN = 20;

/** The paginated list of an invoice's transactions (GET; the sandbox mirror for sandbox invoices). */
export function transactionsPath(invoice: Pick<Invoice, 'id' | 'project_kind'>): string {
  return `/api/v1/${invoice.project_kind === 'sandbox' ? 'sandbox/' : ''}invoices/${invoice.id}/transactions`;
}

/**
 * Renders an invoice with its latest {@link TRANSACTIONS_SHOWN} transactions (`shown` overrides it:
 * the checkout page reads them all to tell the payer what is left). `confirmations` is the lowest
 * count among all its transactions that still count (live: neither reverted nor dropped): an
 * invoice is only as confirmed as its least confirmed payment; 0 without any.
 */
export function invoiceView(
  invoice: Invoice,
  transactions: readonly InvoiceTransaction[],
  chains: ChainRegistry,
  links: CheckoutLinks,
  shown: number = TRANSACTIONS_SHOWN,
): InvoiceView {
  // A chain disabled since keeps its invoices readable: the build still knows the coin's decimals.
  const decimals = chains.storedCoin(invoice.coin).decimals;
  const counted = transactions.filter((tx) => tx.status === 'pending' || tx.status === 'confirmed');
  const snapshot = invoice.rate_snapshot;
  const fetchedAt = snapshot ? new Date(snapshot.fetched_at_iso) : undefined;
  return {
    id: invoice.id,
    project_id: invoice.project_id,
    external_id: invoice.external_id,
    coin: invoice.coin,
    address: invoice.address,
    amount_crypto: invoice.amount_crypto,
    amount_crypto_units: invoice.amount_units.toString(),
    amount_usd: invoice.amount_usd === null ? null : Number(invoice.amount_usd),
    rate_snapshot:
      snapshot && fetchedAt
        ? { source: snapshot.source, pair: snapshot.pair, rate: snapshot.rate, fetched_at: seconds(fetchedAt), fetched_at_iso: snapshot.fetched_at_iso }
        : null,
    price_currency: invoice.price_currency ?? null,
    price_amount: invoice.price_amount ?? null,
    price_rate: invoice.price_rate ?? null,
    payment_token: invoice.payment_token,
    payment_reference: invoice.payment_reference ?? null,
    payment_uri: invoice.payment_uri,
    callback_url: invoice.callback_url,
    checkout_url: links.url(invoice.checkout_token),
    return_url: invoice.return_url ?? null,
    cancel_url: invoice.cancel_url ?? null,
    metadata: invoice.metadata,
    matching_mode: invoice.matching_mode,
    confirmation_threshold: invoice.confirmation_threshold,
    underpayment_tolerance: invoice.underpayment_tolerance ?? NO_TOLERANCE,
    status: invoice.status,
    expires_at: seconds(invoice.expires_at),
    expires_at_iso: invoice.expires_at.toISOString(),
    created_at: seconds(invoice.created_at),
    created_at_iso: invoice.created_at.toISOString(),
    derivation_path: invoice.derivation_path,
    verification_standard: invoice.verification_standard,
    // Detection order, the latest last (the list is read in detection order).
    transactions: transactions.slice(Math.max(0, transactions.length - shown)).map((tx) => transactionView(tx, decimals)),
    transactions_total: transactions.length,
    transactions_url: `${links.baseUrl}${transactionsPath(invoice)}`,
    confirmations: counted.length === 0 ? 0 : Math.min(...counted.map((tx) => tx.confirmations)),
  };
}

export function transactionView(tx: InvoiceTransaction, decimals: number): InvoiceTransactionView {
  return {
    tx_hash: tx.tx_hash,
    output_index: tx.output_index,
    to_address: tx.to_address,
    amount_crypto: fromBaseUnits(tx.amount_units, decimals),
    amount_units: tx.amount_units.toString(),
    confirmations: tx.confirmations,
    block_height: tx.block_height === null ? null : Number(tx.block_height),
    block_hash: tx.block_hash,
    status: tx.status,
    detected_at: seconds(tx.detected_at),
    detected_at_iso: tx.detected_at.toISOString(),
  };
}

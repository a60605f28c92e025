import type { InvoiceView } from '@gw/plugin-invoices/contract';

/** One transaction of an invoice as the invoices plugin answers it. */
export type InvoiceTransaction = InvoiceView['transactions'][number];

/** One payment as BTCPay's webhooks and invoice payment methods show it (its `Payment` schema). */
export interface GreenfieldPayment {
  /** `<transaction hash>-<output index>`, as BTCPay names an on-chain payment. */
  readonly id: string;
  /** Unix seconds when the payment was first seen. */
  readonly receivedDate: number;
  /** Decimal string in the coin. */
  readonly value: string;
  /** The payment method's fee: none here (the payer pays the network fee). */
  readonly fee: string;
  readonly status: 'Invalid' | 'Processing' | 'Settled';
  /** The address it was paid to. */
  readonly destination: string;
}

/** A transaction that counts: live (not reorganised away, not dropped from the mempool). */
export function isLive(tx: Pick<InvoiceTransaction, 'status'>): boolean {
  return tx.status === 'pending' || tx.status === 'confirmed';
}

/**
 * A transaction of an invoice as a Greenfield payment, the one mapping both the invoice's payment
 * methods and the webhooks answer: `Settled` once confirmed, `Processing` while seen and not yet
 * confirmed, `Invalid` when it left the chain or the mempool.
 */
export function greenfieldPayment(tx: InvoiceTransaction): GreenfieldPayment {
  return {
    id: paymentIdOf(tx),
    receivedDate: tx.detected_at,
    value: tx.amount_crypto,
    fee: '0',
    status: tx.status === 'confirmed' ? 'Settled' : tx.status === 'pending' ? 'Processing' : 'Invalid',
    destination: tx.to_address,
  };
}

/** BTCPay's id of an on-chain payment: `<transaction hash>-<output index>`. */
export function paymentIdOf(tx: Pick<InvoiceTransaction, 'tx_hash' | 'output_index'>): string {
  return `${tx.tx_hash}-${tx.output_index}`;
}

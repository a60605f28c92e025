import { fromBaseUnits } from '@gw/kernel';
import { statusesWhere, TERMINAL_STATUSES, type InvoiceStatus, type InvoiceView } from '@gw/plugin-invoices/contract';

/** What the payer is told about an invoice: its status and, while it is short, what is left to send. */
export interface PayerStatus {
  readonly status: InvoiceStatus;
  /** Confirmations of the least confirmed counted payment, and the threshold. */
  readonly confirmations: number;
  readonly threshold: number;
  /** Still to send, as a decimal string (partial only). */
  readonly remainder?: string;
  /**
   * What the QR code and the wallet link ask for, in base units: the invoiced amount less the
   * payments that still count; 0 when those cover it (nothing to scan while they confirm).
   */
  readonly dueUnits: bigint;
  /** Nothing more will happen on this page (paid, expired, ...): the stream may end. */
  readonly final: boolean;
  /** Changes whenever anything the payer sees changes; the stream sends only on change. */
  readonly key: string;
}

/** Whether the partner's `return_url` is where the payer goes next: paid in time. */
export const RETURN_STATUSES: readonly InvoiceStatus[] = statusesWhere({ paid: true, pastDeadline: false });

/**
 * The payer's view of an invoice. The remainder of a partial payment is the invoiced amount less
 * the payments that still count (neither reverted nor dropped), in base units.
 */
export function payerStatus(invoice: InvoiceView, decimals: number): PayerStatus {
  const counted = invoice.transactions.filter((tx) => tx.status === 'pending' || tx.status === 'confirmed');
  const received = counted.reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
  const due = BigInt(invoice.amount_crypto_units);
  const remainder = invoice.status === 'partial' && received < due ? fromBaseUnits(due - received, decimals) : undefined;
  const final = TERMINAL_STATUSES.includes(invoice.status);
  return {
    status: invoice.status,
    confirmations: invoice.confirmations,
    threshold: invoice.confirmation_threshold,
    ...(remainder !== undefined ? { remainder } : {}),
    dueUnits: received < due ? due - received : 0n,
    final,
    key: `${invoice.status}:${invoice.confirmations}:${counted.length}:${received}`,
  };
}

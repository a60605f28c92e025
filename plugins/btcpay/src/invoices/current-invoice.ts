import { isAppError } from '@gw/kernel';
import { type InvoiceService, type InvoiceStatus, type InvoiceView, isShort, toleratedShortfall } from '@gw/plugin-invoices/contract';
import type { SessionView } from '@gw/plugin-sessions/contract';
import type { Knex } from 'knex';
import { type InvoiceTransaction, isLive } from './greenfield-payment.js';
import { allTransactions } from './invoice-transactions.js';

/** A session's current invoice (its `invoice_id`) as the BTCPay state reads it. */
export interface CurrentInvoiceFacts {
  readonly view: InvoiceView;
  /** Every one of its transactions (the view carries only the latest). */
  readonly transactions: readonly InvoiceTransaction[];
  /** Whether its live payments cover its amount ({@link paymentsCover}). */
  readonly covered: boolean;
}

/**
 * Whether an invoice's live payments (seen or confirmed, neither reorganised away nor dropped)
 * cover its amount less its tolerated shortfall, as the invoices' settlement rule counts it
 * (`isShort`); in mode `any` any live payment does. The BTCPay state's `covered` input.
 */
export function paymentsCover(
  invoice: Pick<InvoiceView, 'amount_crypto_units' | 'matching_mode' | 'underpayment_tolerance'>,
  transactions: readonly Pick<InvoiceTransaction, 'status' | 'amount_units'>[],
): boolean {
  const live = transactions.filter(isLive);
  if (live.length === 0) return false;
  const amountUnits = BigInt(invoice.amount_crypto_units);
  return !isShort({
    liveUnits: live.reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n),
    amountUnits,
    matchingMode: invoice.matching_mode,
    toleranceUnits: toleratedShortfall(amountUnits, invoice.underpayment_tolerance),
  });
}

/**
 * The session's current invoice (the session's own `invoice_id`, the one source of which invoice
 * is current: the coin picked last, or the invoice that completed the session) as it is in `trx`
 * (or committed); undefined before a pick, or when it is not the session's project's.
 */
export async function currentInvoiceOf(invoices: InvoiceService, session: SessionView, trx?: Knex.Transaction): Promise<CurrentInvoiceFacts | undefined> {
  if (session.invoice_id === null) return undefined;
  let view: InvoiceView;
  try {
    view = await invoices.get(session.project_id, session.invoice_id, trx);
  } catch (error) {
    if (isAppError(error) && error.code === 'invoice_not_found') return undefined;
    throw error;
  }
  const transactions = await allTransactions(invoices, view);
  return { view, transactions, covered: paymentsCover(view, transactions) };
}

/** The status of a current invoice, null without one. */
export function statusOfCurrent(current: CurrentInvoiceFacts | undefined): InvoiceStatus | null {
  return current?.view.status ?? null;
}

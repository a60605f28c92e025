import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import { type InvoiceTransaction, paymentIdOf } from './greenfield-payment.js';

/** The page size of an invoice's transactions, when its view does not carry them all. */
const TRANSACTIONS_PAGE = 500;

/**
 * Every transaction of an invoice: the view's, or all of them page by page when it carries only the
 * latest. The pages are read outside `trx`: the view's own (read in it, the latest) replace theirs,
 * so a change in `trx` to an older one is the only thing a page may not show yet.
 */
export async function allTransactions(invoices: Pick<InvoiceService, 'transactions'>, view: InvoiceView): Promise<readonly InvoiceTransaction[]> {
  const shown = view.transactions;
  if (view.transactions_total <= shown.length) return shown;
  const byId = new Map<string, InvoiceTransaction>();
  let cursor: string | undefined;
  do {
    const page = await invoices.transactions(view.project_id, view.id, { limit: TRANSACTIONS_PAGE, ...(cursor ? { cursor } : {}) });
    for (const tx of page.items) byId.set(paymentIdOf(tx), tx);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  for (const tx of shown) byId.set(paymentIdOf(tx), tx);
  return [...byId.values()];
}

/**
 * Base units an invoice's confirmed payments brought: what a refund of it can pay back (a pending
 * payment may still be replaced or dropped), every page of its transactions read.
 */
export async function confirmedUnitsOf(invoicesService: Pick<InvoiceService, 'transactions'>, view: InvoiceView): Promise<bigint> {
  const transactions = await allTransactions(invoicesService, view);
  return transactions.filter((tx) => tx.status === 'confirmed').reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
}

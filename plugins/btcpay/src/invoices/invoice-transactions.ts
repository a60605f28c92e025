import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { InvoiceTransaction } from './payment-methods.js';

/** The page size of an invoice's transactions, when its view does not carry them all. */
const TRANSACTIONS_PAGE = 500;

/**
 * Every transaction of an invoice: the view's, or all of them page by page when it carries only
 * the latest (an invoices view shows a bounded number; `transactions_total` counts them all).
 */
export async function allTransactionsOf(invoicesService: Pick<InvoiceService, 'transactions'>, view: InvoiceView): Promise<readonly InvoiceTransaction[]> {
  const shown = view.transactions ?? [];
  if ((view.transactions_total ?? shown.length) <= shown.length) return shown;
  const all: InvoiceTransaction[] = [];
  let cursor: string | undefined;
  do {
    const page = await invoicesService.transactions(view.project_id, view.id, { limit: TRANSACTIONS_PAGE, ...(cursor ? { cursor } : {}) });
    all.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor !== undefined);
  return all;
}

/**
 * Base units an invoice's confirmed payments brought: what a refund of it can pay back (a pending
 * payment may still be replaced or dropped), every page of its transactions read.
 */
export async function confirmedUnitsOf(invoicesService: Pick<InvoiceService, 'transactions'>, view: InvoiceView): Promise<bigint> {
  const transactions = await allTransactionsOf(invoicesService, view);
  return transactions.filter((tx) => tx.status === 'confirmed').reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
}

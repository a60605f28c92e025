import type { Knex } from 'knex';
import type { MarkableStatus } from './status-table.js';

/** The table of what a BTCPay invoice adds to the checkout session it is (migration 0001). */
export const INVOICES_TABLE = 'btcpay_invoices';

/** The checkout and receipt options of a create request as given, kept to answer them back. */
export interface StoredOptions {
  readonly speedPolicy?: string;
  readonly paymentMethods?: readonly string[];
  readonly defaultPaymentMethod?: string;
  readonly lazyPaymentMethods?: boolean;
  readonly expirationMinutes?: number;
  readonly monitoringMinutes?: number;
  readonly paymentTolerance?: number;
  readonly redirectURL?: string;
  readonly redirectAutomatically?: boolean;
  readonly defaultLanguage?: string;
  readonly receipt?: { readonly enabled?: boolean; readonly showQR?: boolean; readonly showPayments?: boolean };
  /** BTCPay's `additionalSearchTerms`: what `textSearch` finds the invoice by besides its id, order id and metadata. */
  readonly additionalSearchTerms?: readonly string[];
}

/** One row of `btcpay_invoices`. */
export interface InvoiceRow {
  readonly session_id: string;
  readonly project_id: string;
  readonly order_id: string | null;
  readonly metadata: Record<string, unknown>;
  readonly checkout: StoredOptions;
  readonly marked_status: MarkableStatus | null;
  readonly marked_at: Date | null;
  readonly archived_at: Date | null;
  readonly created_at: Date;
}

/** What a create writes. */
export type NewInvoiceRow = Pick<InvoiceRow, 'session_id' | 'project_id' | 'order_id' | 'metadata' | 'checkout'>;

/** Inserts the row of a new BTCPay invoice in the session's creating transaction. */
export async function insertInvoiceRow(trx: Knex.Transaction, row: NewInvoiceRow): Promise<InvoiceRow> {
  const [inserted] = await trx(INVOICES_TABLE)
    .insert({ ...row, metadata: JSON.stringify(row.metadata), checkout: JSON.stringify(row.checkout) })
    .returning('*');
  return inserted as InvoiceRow;
}

/** The row of `sessionId` when it is a BTCPay invoice of `projectId` (locked with `forUpdate`). */
export async function findInvoiceRow(db: Knex | Knex.Transaction, projectId: string, sessionId: string, forUpdate = false): Promise<InvoiceRow | undefined> {
  const query = db(INVOICES_TABLE).where({ project_id: projectId, session_id: sessionId }).first();
  return (await (forUpdate ? query.forUpdate() : query)) as InvoiceRow | undefined;
}

/** The project of a BTCPay invoice, found by its id alone (the store-less paths); undefined when unknown. */
export async function projectOfInvoice(db: Knex, sessionId: string): Promise<string | undefined> {
  const row = (await db(INVOICES_TABLE).where({ session_id: sessionId }).first('project_id')) as { project_id: string } | undefined;
  return row?.project_id;
}

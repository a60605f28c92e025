import { sql, sqlQuery, withUnitsColumns, type ChainId, type CoinId } from '@gw/kernel';
import type { Knex } from 'knex';
import { Model, type Pojo } from 'objection';

/** Base-units columns of `invoices_transactions`, read as bigint. */
const UNITS_COLUMNS = ['amount_units'];

/** A transfer attributed to an invoice (observed on chain, or synthetic in the sandbox). */
export class InvoiceTransaction extends Model {
  static override tableName = 'invoices_transactions';
  id!: string;
  invoice_id!: string;
  project_id!: string;
  chain!: ChainId;
  coin!: CoinId;
  tx_hash!: string;
  output_index!: number;
  to_address!: string;
  amount_units!: bigint;
  block_height!: string | null;
  block_hash!: string | null;
  confirmations!: number;
  /** pending: live, not yet counted; confirmed: counted in a settled status; reverted: left the chain; dropped: left the mempool unmined. */
  status!: 'pending' | 'confirmed' | 'reverted' | 'dropped';
  synthetic!: boolean;
  detected_at!: Date;
  confirmed_at!: Date | null;

  override $parseDatabaseJson(json: Pojo): Pojo {
    return withUnitsColumns(super.$parseDatabaseJson(json), UNITS_COLUMNS);
  }
}

/** The transactions of each invoice, in detection order, keyed by invoice id. */
export async function transactionsByInvoice(db: Knex | Knex.Transaction, invoiceIds: readonly string[]): Promise<Map<string, InvoiceTransaction[]>> {
  const byInvoice = new Map<string, InvoiceTransaction[]>();
  if (invoiceIds.length === 0) return byInvoice;
  // One array parameter: any number of ids (a list per id would stop at 65,535 bind parameters).
  const rows = await sqlQuery<object>(db, sql`select * from invoices_transactions where invoice_id = any(${[...invoiceIds]}::text[]) order by detected_at, id`);
  for (const read of rows) {
    const row = withUnitsColumns<InvoiceTransaction>(read, UNITS_COLUMNS);
    const list = byInvoice.get(row.invoice_id);
    if (list) list.push(row);
    else byInvoice.set(row.invoice_id, [row]);
  }
  return byInvoice;
}

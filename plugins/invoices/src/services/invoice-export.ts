import { fixedFromBaseUnits, fromBaseUnits, groupBy, sql, sqlQuery, unitsTimesRate, withUnitsColumns, type ChainRegistry } from '@gw/kernel';
import type { Knex } from 'knex';

/** One exported invoice with its transactions; every amount an exact decimal string. */
export interface ExportedInvoice {
  readonly invoice_id: string;
  readonly external_id: string;
  readonly status: string;
  readonly project_kind: string;
  readonly chain: string;
  readonly coin: string;
  readonly address: string;
  readonly amount_crypto: string;
  /** USD at creation: the invoice's USD amount (the rate snapshot applied to the amount). */
  readonly amount_usd_at_creation: string | null;
  readonly usd_rate_at_creation: string | null;
  readonly usd_rate_source_at_creation: string | null;
  readonly created_at: string;
  readonly expires_at: string;
  /** When the invoice first reached a paid status. */
  readonly paid_at: string | null;
  /** Sum of its confirmed transactions. */
  readonly received_crypto: string;
  readonly usd_rate_at_payment: string | null;
  readonly usd_rate_source_at_payment: string | null;
  /** `received_crypto × usd_rate_at_payment`, rounded half-up to 8 decimals. */
  readonly received_usd_at_payment: string | null;
  readonly transactions: readonly ExportedTransaction[];
}

export interface ExportedTransaction {
  readonly tx_hash: string;
  readonly output_index: number;
  readonly amount_crypto: string;
  readonly status: string;
  readonly confirmations: number;
  readonly block_height: string | null;
  readonly detected_at: string;
  readonly confirmed_at: string | null;
}

export interface ExportRange {
  readonly projectId: string;
  /** Invoices created at or after. */
  readonly from: Date;
  /** Invoices created at or before. */
  readonly to: Date;
}

interface InvoiceRow {
  id: string;
  external_id: string;
  status: string;
  project_kind: string;
  chain: string;
  coin: string;
  address: string;
  amount_crypto: string;
  amount_usd: string | null;
  rate_snapshot: { source: string; rate: string } | null;
  created_at: Date;
  expires_at: Date;
  paid_at: Date | null;
  paid_usd_rate: string | null;
  paid_rate_source: string | null;
}

interface TransactionRow {
  invoice_id: string;
  tx_hash: string;
  output_index: number;
  amount_units: bigint;
  status: string;
  confirmations: number;
  block_height: string | null;
  detected_at: Date;
  confirmed_at: Date | null;
}

/** Invoices read per query: memory holds one page, whatever the range holds. */
export const EXPORT_PAGE = 1000;

/**
 * Accounting export (issue 23): every invoice of a project created in a range, oldest first, with
 * its transactions. Pages by keyset (created_at, id) on the (project_id, created_at) index, so memory
 * stays one page however many invoices the range holds, and a page never repeats or skips a row.
 * Numbers come out of PostgreSQL as text and are never JavaScript numbers.
 */
export class InvoiceExporter {
  constructor(private readonly deps: { db: Knex; chains: ChainRegistry }) {}

  async *invoices(range: ExportRange, pageSize = EXPORT_PAGE): AsyncGenerator<ExportedInvoice> {
    let after: { created_at: Date; id: string } | undefined;
    for (;;) {
      const rows = await sqlQuery<InvoiceRow>(
        this.deps.db,
        sql`select id, external_id, status, project_kind, chain, coin, address, amount_crypto, amount_usd::text as amount_usd, rate_snapshot,
                   created_at, expires_at, paid_at, paid_usd_rate::text as paid_usd_rate, paid_rate_source
              from invoices_invoices
             where project_id = ${range.projectId} and created_at >= ${range.from} and created_at <= ${range.to}
               ${after ? sql`and (created_at, id) > (${after.created_at}, ${after.id})` : sql``}
             order by created_at, id
             limit ${pageSize}`,
      );
      if (rows.length === 0) return;
      const transactions = (
        await sqlQuery<object>(
          this.deps.db,
          sql`select invoice_id, tx_hash, output_index, amount_units::text as amount_units, status, confirmations, block_height::text as block_height, detected_at, confirmed_at
                from invoices_transactions where invoice_id = any(${rows.map((r) => r.id)}::text[]) order by detected_at, id`,
        )
      ).map((row) => withUnitsColumns<TransactionRow>(row, ['amount_units']));
      const byInvoice = groupBy(transactions, (t) => t.invoice_id);
      for (const row of rows) yield this.exported(row, byInvoice.get(row.id) ?? []);
      if (rows.length < pageSize) return;
      const last = rows[rows.length - 1]!;
      after = { created_at: last.created_at, id: last.id };
    }
  }

  private exported(row: InvoiceRow, transactions: readonly TransactionRow[]): ExportedInvoice {
    const decimals = this.deps.chains.storedCoin(row.coin).decimals;
    const received = transactions.filter((t) => t.status === 'confirmed').reduce((sum, t) => sum + t.amount_units, 0n);
    return {
      invoice_id: row.id,
      external_id: row.external_id,
      status: row.status,
      project_kind: row.project_kind,
      chain: row.chain,
      coin: row.coin,
      address: row.address,
      amount_crypto: row.amount_crypto,
      amount_usd_at_creation: row.amount_usd,
      usd_rate_at_creation: row.rate_snapshot?.rate ?? null,
      usd_rate_source_at_creation: row.rate_snapshot?.source ?? null,
      created_at: row.created_at.toISOString(),
      expires_at: row.expires_at.toISOString(),
      paid_at: row.paid_at?.toISOString() ?? null,
      received_crypto: fromBaseUnits(received, decimals),
      usd_rate_at_payment: row.paid_usd_rate,
      usd_rate_source_at_payment: row.paid_rate_source,
      received_usd_at_payment: row.paid_usd_rate === null ? null : fixedFromBaseUnits(unitsTimesRate(received, decimals, row.paid_usd_rate, 8), 8),
      transactions: transactions.map((t) => ({
        tx_hash: t.tx_hash,
        output_index: t.output_index,
        amount_crypto: fromBaseUnits(t.amount_units, decimals),
        status: t.status,
        confirmations: t.confirmations,
        block_height: t.block_height,
        detected_at: t.detected_at.toISOString(),
        confirmed_at: t.confirmed_at?.toISOString() ?? null,
      })),
    };
  }
}

/** The CSV columns: one line per transaction, or one per invoice without transactions. */
export const CSV_COLUMNS = [
  'invoice_id',
  'external_id',
  'status',
  'project_kind',
  'chain',
  'coin',
  'address',
  'amount_crypto',
  'amount_usd_at_creation',
  'usd_rate_at_creation',
  'usd_rate_source_at_creation',
  'created_at',
  'expires_at',
  'paid_at',
  'received_crypto',
  'usd_rate_at_payment',
  'usd_rate_source_at_payment',
  'received_usd_at_payment',
  'tx_hash',
  'tx_output_index',
  'tx_amount_crypto',
  'tx_status',
  'tx_confirmations',
  'tx_block_height',
  'tx_detected_at',
  'tx_confirmed_at',
] as const;

/** RFC 4180 field: quoted when it holds a comma, quote, CR or LF; a leading =+-@ is defused. */
export function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  // Spreadsheets run a cell starting with = + - @ as a formula (CSV injection); amounts never start so.
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The CSV lines of one invoice (no trailing newline on each). */
export function csvLines(invoice: ExportedInvoice): string[] {
  const head = [
    invoice.invoice_id,
    invoice.external_id,
    invoice.status,
    invoice.project_kind,
    invoice.chain,
    invoice.coin,
    invoice.address,
    invoice.amount_crypto,
    invoice.amount_usd_at_creation,
    invoice.usd_rate_at_creation,
    invoice.usd_rate_source_at_creation,
    invoice.created_at,
    invoice.expires_at,
    invoice.paid_at,
    invoice.received_crypto,
    invoice.usd_rate_at_payment,
    invoice.usd_rate_source_at_payment,
    invoice.received_usd_at_payment,
  ].map(csvField);
  if (invoice.transactions.length === 0) return [[...head, '', '', '', '', '', '', '', ''].join(',')];
  return invoice.transactions.map((t) =>
    [...head, ...[t.tx_hash, t.output_index, t.amount_crypto, t.status, t.confirmations, t.block_height, t.detected_at, t.confirmed_at].map(csvField)].join(
      ',',
    ),
  );
}

/**
 * The export file as it is written, piece by piece, in constant memory: in `csv` the header and
 * then each invoice's lines ({@link csvLines}, CRLF); in `json` an array with one invoice per line.
 * `onInvoice` is told the count after each invoice (progress). The CLI and the dashboard write it.
 */
export async function* exportDocument(
  invoices: AsyncIterable<ExportedInvoice>,
  format: 'csv' | 'json',
  onInvoice?: (count: number) => void,
): AsyncGenerator<string> {
  let count = 0;
  yield format === 'csv' ? `${CSV_COLUMNS.join(',')}\r\n` : '[';
  for await (const invoice of invoices) {
    yield format === 'csv' ? `${csvLines(invoice).join('\r\n')}\r\n` : `${count === 0 ? '\n' : ',\n'}${JSON.stringify(invoice)}`;
    count += 1;
    onInvoice?.(count);
  }
  if (format === 'json') yield count === 0 ? ']\n' : '\n]\n';
}

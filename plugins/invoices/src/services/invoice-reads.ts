import { coreErrors, keysetPage, type KeysetPage, type KeysetPageRequest, parseInstant, type ChainId, type ChainRegistry, type ProjectKind } from '@gw/kernel';
import type { Knex } from 'knex';
import { invoicesErrors } from '../errors.js';
import type { InvoiceStatus } from '../invoice-status.js';
import { WAITING_STATUSES } from '../lifecycle/status-traits.js';
import { InvoiceTransaction, transactionsByInvoice } from '../models/invoice-transaction.js';
import { Invoice } from '../models/invoice.js';
import type { CheckoutLinks } from './checkout-links.js';
import { invoiceView, transactionView, type InvoiceTransactionView, type InvoiceView } from './invoice-view.js';

/** What the checkout page reads: the invoice and whether its project is a sandbox. */
export interface CheckoutInvoice {
  readonly invoice: InvoiceView;
  readonly projectKind: ProjectKind;
}

/** Filters of GET /invoices (spec 4.2). */
export interface InvoiceListFilter extends KeysetPageRequest {
  readonly external_id?: string | undefined;
  readonly address?: string | undefined;
  readonly tx_hash?: string | undefined;
  readonly amount?: string | undefined;
  readonly status?: InvoiceStatus | undefined;
  readonly date_from?: string | undefined;
  readonly date_to?: string | undefined;
}

export type InvoicePage = KeysetPage<InvoiceView>;

/** The invoices' read model: every read is scoped to the caller's project. */
export class InvoiceReads {
  constructor(private readonly deps: { db: Knex; chains: ChainRegistry; invoicesCheckoutLinks: CheckoutLinks }) {}

  /** One invoice of the project, with its transactions (read in `db`); 404 `invoice_not_found` otherwise. */
  async get(projectId: string, invoiceId: string, db: Knex | Knex.Transaction = this.deps.db): Promise<InvoiceView> {
    const invoice = await Invoice.query(db).findOne({ id: invoiceId, project_id: projectId });
    if (!invoice) throw invoicesErrors.invoice_not_found();
    return invoiceView(
      invoice,
      await transactionsByInvoice(db, [invoice.id]).then((m) => m.get(invoice.id) ?? []),
      this.deps.chains,
      this.deps.invoicesCheckoutLinks,
    );
  }

  /**
   * Every transaction of one invoice of the project, `limit` per page in id (detection) order;
   * `next_cursor` is the last id of a full page. 404 `invoice_not_found` otherwise.
   */
  async transactions(projectId: string, invoiceId: string, page: KeysetPageRequest): Promise<KeysetPage<InvoiceTransactionView>> {
    const invoice = await Invoice.query(this.deps.db).findOne({ id: invoiceId, project_id: projectId }).select('id', 'coin');
    if (!invoice) throw invoicesErrors.invoice_not_found();
    const query = InvoiceTransaction.query(this.deps.db)
      .where('invoice_id', invoice.id)
      .orderBy('id')
      .limit(page.limit + 1);
    if (page.cursor) query.where('id', '>', page.cursor);
    const decimals = this.deps.chains.storedCoin(invoice.coin).decimals;
    return keysetPage(await query, page.limit, (rows) => rows.map((row) => transactionView(row, decimals)));
  }

  /**
   * Newest first, `limit` per page; `next_cursor` is the last id of a full page. Pages are keyed
   * by id (`id < cursor`), so rows created while a client pages never shift or repeat entries.
   */
  async list(projectId: string, filter: InvoiceListFilter): Promise<InvoicePage> {
    const query = Invoice.query(this.deps.db)
      .where('project_id', projectId)
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.cursor) query.where('id', '<', filter.cursor);
    if (filter.external_id !== undefined) query.where('external_id', filter.external_id);
    if (filter.address !== undefined) query.where('address', filter.address.trim());
    if (filter.status !== undefined) query.where('status', filter.status);
    if (filter.amount !== undefined) query.whereRaw('amount_crypto::numeric = ?::numeric', [filter.amount]);
    if (filter.tx_hash !== undefined) {
      const txHash = filter.tx_hash.trim();
      query.whereExists(
        InvoiceTransaction.query(this.deps.db)
          .whereColumn(`${InvoiceTransaction.tableName}.invoice_id`, `${Invoice.tableName}.id`)
          .where(`${InvoiceTransaction.tableName}.project_id`, projectId)
          .where((q) => q.where('tx_hash', txHash).orWhere('tx_hash', txHash.toLowerCase())),
      );
    }
    const from = filter.date_from !== undefined ? parseInstant(filter.date_from, 'date_from', 'start') : undefined;
    const to = filter.date_to !== undefined ? parseInstant(filter.date_to, 'date_to', 'end') : undefined;
    if (from && to && from > to)
      throw coreErrors.validation_error({ message: 'query.date_from is after query.date_to', details: { field: 'query.date_from' } });
    if (from) query.where('created_at', '>=', from);
    if (to) query.where('created_at', '<=', to);
    return keysetPage(await query, filter.limit, async (page) => {
      const transactions = await transactionsByInvoice(
        this.deps.db,
        page.map((row) => row.id),
      );
      return page.map((row) => invoiceView(row, transactions.get(row.id) ?? [], this.deps.chains, this.deps.invoicesCheckoutLinks));
    });
  }

  /** How many of the project's invoices still wait for money (pending, detected, partial, ambiguous). */
  async countActive(projectId: string): Promise<number> {
    const row = await Invoice.query(this.deps.db).where('project_id', projectId).whereIn('status', WAITING_STATUSES).count('* as n').first();
    return Number((row as unknown as { n: string | number } | undefined)?.n ?? 0);
  }

  /** Whether the project has an invoice under `externalId` (a create with it would be a replay). */
  async hasExternalId(projectId: string, externalId: string): Promise<boolean> {
    return (await Invoice.query(this.deps.db).findOne({ project_id: projectId, external_id: externalId }).select('id')) !== undefined;
  }

  /** Ids of the project's invoices on `chain` with a payment still waiting for confirmations (sandbox clock/advance). */
  async awaitingConfirmations(projectId: string, chain: ChainId): Promise<string[]> {
    const rows = await InvoiceTransaction.query(this.deps.db).where({ project_id: projectId, chain, status: 'pending' }).distinct('invoice_id');
    return rows.map((r) => r.invoice_id);
  }

  /** Invoices by id with their transactions (read in `db`); ids not found are absent. */
  async getMany(invoiceIds: readonly string[], db: Knex | Knex.Transaction = this.deps.db): Promise<Map<string, InvoiceView>> {
    if (invoiceIds.length === 0) return new Map();
    const rows = await Invoice.query(db).whereRaw('id = any(?)', [[...new Set(invoiceIds)]]);
    const transactions = await transactionsByInvoice(
      db,
      rows.map((row) => row.id),
    );
    return new Map(rows.map((row) => [row.id, invoiceView(row, transactions.get(row.id) ?? [], this.deps.chains, this.deps.invoicesCheckoutLinks)]));
  }

  /**
   * Deletes every invoice of the project and its transactions (the sandbox reset), in `trx`.
   * Returns how many invoices went. Policies stay. Pool addresses are the pool's to purge.
   */
  async purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    return Invoice.query(trx).where('project_id', projectId).delete();
  }

  /**
   * The invoice behind a checkout token, with its transactions and its project's kind (the page
   * shows the sandbox banner); undefined for an unknown token. The token is the only key: the page
   * is public and reveals this one invoice.
   */
  async byCheckoutToken(token: string): Promise<CheckoutInvoice | undefined> {
    const invoice = await Invoice.query(this.deps.db).findOne({ checkout_token: token });
    if (!invoice) return undefined;
    const transactions = (await transactionsByInvoice(this.deps.db, [invoice.id])).get(invoice.id) ?? [];
    // All of them: the page tells the payer what is left from the payments that still count.
    return { invoice: invoiceView(invoice, transactions, this.deps.chains, this.deps.invoicesCheckoutLinks, Infinity), projectKind: invoice.project_kind };
  }
}

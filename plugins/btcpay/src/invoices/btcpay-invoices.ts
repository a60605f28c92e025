import { type Actor, type AuditLog, type ChainRegistry, isAppError, type ProjectPrincipal } from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { CheckoutSessions, SessionView } from '@gw/plugin-sessions/contract';
import type { Knex } from 'knex';
import { btcpayErrors } from '../errors.js';
import { type BtcpayWebhookEvents, invoiceCreatedEvents, invoiceMarkedEvents } from '../webhooks/invoice-events.js';
import { parseCreateRequest, parseMetadataUpdate, type CoinNames } from './create-request.js';
import { invoiceData, stateOf, type CoinCodes } from './invoice-data.js';
import { findInvoiceRow, insertInvoiceRow, INVOICES_TABLE, projectOfInvoice, type InvoiceRow } from './invoice-rows.js';
import type { InvoiceListQuery } from './list-query.js';
import { paymentMethods, type SessionInvoice } from './payment-methods.js';
import { currentInvoiceOf, type CurrentInvoiceFacts } from './current-invoice.js';
import { allTransactions } from './invoice-transactions.js';
import { markableStatuses, type MarkableStatus } from './status-table.js';
import { validationFailed, type ValidationIssue } from './validation-issues.js';

/** How many invoices a list reads at a time while it filters by status. */
const LIST_BATCH = 200;

/** How many sessions a list reads at once. */
const READ_CONCURRENCY = 20;

/** Where the sessions' field names of a refused create point in BTCPay's request. */
const SESSION_FIELD_PATHS: Readonly<Record<string, string>> = {
  price_currency: 'currency',
  price_amount: 'amount',
  allowed_coins: 'checkout.paymentMethods',
  expires_in: 'checkout.expirationMinutes',
  return_url: 'checkout.redirectURL',
  external_id: 'metadata.orderId',
  customer_email: 'metadata.buyerEmail',
  description: 'metadata.itemDesc',
  metadata: 'metadata',
};

/** BTCPay's answer to a mark the invoice's state does not allow. */
const NOT_MARKABLE = 'Status can only be marked to invalid or settled within certain conditions.';

/** BTCPay coin names both ways (the credentials area's payment method ids). */
export type CoinNaming = CoinNames & CoinCodes;

export interface BtcpayInvoicesDeps {
  readonly db: Knex;
  readonly chains: ChainRegistry;
  readonly audit: AuditLog;
  readonly sessionsCheckout: CheckoutSessions;
  readonly invoicesService: InvoiceService;
  readonly btcpayWebhookEvents: BtcpayWebhookEvents;
}

/**
 * BTCPay invoices, which are checkout sessions (same id): the create opens a session through the
 * sessions' contract and writes the `btcpay_invoices` row in its transaction; reads join the
 * session with that row; a mark is kept on the row (and `Invalid` ends an open session); an archive
 * hides the invoice from the list. Every method takes a project the caller may act on (the routes
 * check the key's permissions first); an invoice of another project is 404 `invoice-not-found`.
 */
export class BtcpayInvoices {
  constructor(
    private readonly deps: BtcpayInvoicesDeps,
    private readonly naming: CoinNaming,
  ) {}

  /** Opens the session of a BTCPay `CreateInvoiceRequest`; 422 with BTCPay's list for what it refuses, nothing written. */
  async create(project: ProjectPrincipal, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const parsed = parseCreateRequest(body, this.naming);
    if ('issues' in parsed) throw validationFailed(parsed.issues);
    const { request } = parsed;
    let row: InvoiceRow | undefined;
    try {
      const { session } = await this.deps.sessionsCheckout.create({ id: project.id, kind: project.kind }, request.session, actor, undefined, {
        inTransaction: async (trx, opened) => {
          row = await insertInvoiceRow(trx, {
            session_id: opened.id,
            project_id: project.id,
            order_id: request.orderId,
            metadata: request.metadata,
            checkout: request.options,
          });
          // InvoiceCreated, enqueued in the transaction that opens the session.
          await invoiceCreatedEvents(trx, this.deps.btcpayWebhookEvents, { sessionId: opened.id, projectId: project.id, projectKind: project.kind });
        },
      });
      // Nothing is picked yet: no current invoice.
      return invoiceData(session, row!, undefined, this.deps.chains, this.naming);
    } catch (error) {
      throw refusedBySessions(error);
    }
  }

  /** One invoice of the project; 404 `invoice-not-found` otherwise. */
  async get(projectId: string, invoiceId: string): Promise<Record<string, unknown>> {
    const row = await this.row(projectId, invoiceId);
    const session = await this.deps.sessionsCheckout.get(projectId, invoiceId);
    return invoiceData(session, row, await currentInvoiceOf(this.deps.invoicesService, session), this.deps.chains, this.naming);
  }

  /** The project of an invoice found by its id alone (BTCPay's store-less paths); undefined when no store has it. */
  projectOf(invoiceId: string): Promise<string | undefined> {
    return projectOfInvoice(this.deps.db, invoiceId);
  }

  /**
   * The checkout link of an invoice found by its id alone (BTCPay's public `/i/{invoiceId}`, where
   * shop plugins send a returning payer); undefined when no store has it. Whatever the session's
   * status (open, completed, expired): BTCPay's `/i/` shows a settled or expired invoice's checkout
   * too, and the page says what became of it. The id is a ULID with 80 random bits, and its page
   * shows nothing the payer's own link does not (docs/decisions.md).
   */
  async checkoutLink(invoiceId: string): Promise<string | undefined> {
    const projectId = await this.projectOf(invoiceId);
    return projectId === undefined ? undefined : (await this.deps.sessionsCheckout.get(projectId, invoiceId)).url;
  }

  /** The project's invoices, newest first, filtered as BTCPay filters them. */
  async list(projectId: string, query: InvoiceListQuery): Promise<Record<string, unknown>[]> {
    if (query.unknownStatusesOnly || query.take === 0) return [];
    if (query.statuses.length === 0) {
      const rows = (await this.listQuery(projectId, query).offset(query.skip).limit(query.take)) as InvoiceRow[];
      return (await this.withSessions(projectId, rows)).map(({ session, row, current }) => invoiceData(session, row, current, this.deps.chains, this.naming));
    }
    // The status follows from the session: read on in batches, keep the matching ones.
    const found: Record<string, unknown>[] = [];
    let skipped = 0;
    for (let offset = 0; found.length < query.take; offset += LIST_BATCH) {
      const rows = (await this.listQuery(projectId, query).offset(offset).limit(LIST_BATCH)) as InvoiceRow[];
      for (const { session, row, current } of await this.withSessions(projectId, rows)) {
        if (!query.statuses.includes(stateOf(session, row, current).status)) continue;
        if (skipped < query.skip) skipped += 1;
        else if (found.length < query.take) found.push(invoiceData(session, row, current, this.deps.chains, this.naming));
      }
      if (rows.length < LIST_BATCH) break;
    }
    return found;
  }

  /** The invoice's payment methods (one per coin the payer may pick), BTCPay's `InvoicePaymentMethodDataModel` list. */
  async paymentMethods(projectId: string, invoiceId: string, onlyAccounted: boolean): Promise<Record<string, unknown>[]> {
    await this.row(projectId, invoiceId);
    const session = await this.deps.sessionsCheckout.get(projectId, invoiceId);
    const views = await this.deps.invoicesService.getMany(session.invoices.map((invoice) => invoice.invoice_id));
    const invoices = new Map<string, SessionInvoice>();
    for (const view of views.values()) {
      if (view.project_id !== projectId) continue;
      invoices.set(view.id, { invoice: view, transactions: await allTransactions(this.deps.invoicesService, view) });
    }
    return paymentMethods(session, invoices, this.deps.chains, this.naming, onlyAccounted);
  }

  /**
   * Marks the invoice `Invalid` or `Settled` when BTCPay would allow it in its state (else 422 on
   * `status`), with its webhook events (`manuallyMarked`) in the mark's transaction. `Invalid` then
   * ends an open session (its unpaid invoice cancelled), unless a payment to it is under way: the
   * mark holds either way, as BTCPay's does. The mark is written first, so the session's end is
   * heard as the invoice already marked (no `InvoiceExpired` before the `InvoiceInvalid`). The
   * session is read and locked in the mark's transaction, so it cannot complete or expire between
   * the check and the mark.
   */
  async mark(project: ProjectPrincipal, invoiceId: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    const status = markOf(body);
    await this.row(project.id, invoiceId);
    const session = await this.deps.db.transaction(async (trx) => {
      // The session first, as its completion locks it before the BTCPay rows.
      const session = await this.deps.sessionsCheckout.get(project.id, invoiceId, { trx, lock: true });
      const locked = (await findInvoiceRow(trx, project.id, invoiceId, true))!;
      const current = await currentInvoiceOf(this.deps.invoicesService, session, trx);
      if (!markableStatuses(stateOf(session, locked, current)).includes(status)) throw validationFailed([{ path: 'status', message: NOT_MARKABLE }]);
      await trx(INVOICES_TABLE).where({ session_id: invoiceId }).update({ marked_status: status, marked_at: trx.fn.now() });
      await this.deps.audit.record(
        audit(actor, 'mark', project.id, invoiceId, { status, previous: locked.marked_status, session_status: session.status }),
        trx,
      );
      await invoiceMarkedEvents(trx, this.deps.btcpayWebhookEvents, { sessionId: invoiceId, projectId: project.id, projectKind: project.kind });
      return session;
    });
    if (status === 'Invalid' && session.status === 'open') await this.endSession(project.id, invoiceId, actor);
    return this.get(project.id, invoiceId);
  }

  /**
   * BTCPay's `UpdateInvoiceRequest`: the invoice's metadata replaced (its order id with it, as the
   * list filters by it). The session keeps what it was opened with (its external id, e-mail
   * address and description).
   */
  async updateMetadata(projectId: string, invoiceId: string, body: unknown, actor: Actor): Promise<Record<string, unknown>> {
    await this.row(projectId, invoiceId);
    const parsed = parseMetadataUpdate(body);
    if ('issues' in parsed) throw validationFailed(parsed.issues);
    await this.deps.db.transaction(async (trx) => {
      await trx(INVOICES_TABLE)
        .where({ project_id: projectId, session_id: invoiceId })
        .update({ metadata: JSON.stringify(parsed.metadata), order_id: parsed.orderId });
      await this.deps.audit.record(audit(actor, 'update_metadata', projectId, invoiceId, { order_id: parsed.orderId }), trx);
    });
    return this.get(projectId, invoiceId);
  }

  /** BTCPay's archive: the invoice leaves the store's list (it stays readable by id). Archiving an archived one changes nothing. */
  async archive(projectId: string, invoiceId: string, actor: Actor): Promise<void> {
    await this.row(projectId, invoiceId);
    await this.deps.db.transaction(async (trx) => {
      const updated = await trx(INVOICES_TABLE)
        .where({ project_id: projectId, session_id: invoiceId })
        .whereNull('archived_at')
        .update({ archived_at: trx.fn.now() });
      if (updated > 0) await this.deps.audit.record(audit(actor, 'archive', projectId, invoiceId), trx);
    });
  }

  /**
   * Undoes an archive. An invoice that is not archived stays as it is and is answered all the same
   * (BTCPay answers 400 `already-unarchived` there, a shape its own document does not allow).
   */
  async unarchive(projectId: string, invoiceId: string, actor: Actor): Promise<Record<string, unknown>> {
    await this.row(projectId, invoiceId);
    await this.deps.db.transaction(async (trx) => {
      const updated = await trx(INVOICES_TABLE)
        .where({ project_id: projectId, session_id: invoiceId })
        .whereNotNull('archived_at')
        .update({ archived_at: null });
      if (updated > 0) await this.deps.audit.record(audit(actor, 'unarchive', projectId, invoiceId), trx);
    });
    return this.get(projectId, invoiceId);
  }

  /** The invoice's row; 404 `invoice-not-found` for an id that is no BTCPay invoice of the project. */
  private async row(projectId: string, invoiceId: string): Promise<InvoiceRow> {
    const row = await findInvoiceRow(this.deps.db, projectId, invoiceId);
    if (!row) throw btcpayErrors.btcpay_invoice_not_found();
    return row;
  }

  /** Ends an open session for an `Invalid` mark; a session that closed meanwhile or is being paid stays as it is. */
  private async endSession(projectId: string, invoiceId: string, actor: Actor): Promise<void> {
    try {
      await this.deps.sessionsCheckout.expire(projectId, invoiceId, actor);
    } catch (error) {
      if (isAppError(error) && (error.code === 'checkout_session_closed' || error.code === 'checkout_session_payment_in_progress')) return;
      throw error;
    }
  }

  /** The rows of the list's filters, newest first (status aside). */
  private listQuery(projectId: string, query: InvoiceListQuery): Knex.QueryBuilder {
    const builder = this.deps
      .db(INVOICES_TABLE)
      .where('project_id', projectId)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'session_id', order: 'desc' },
      ]);
    if (!query.includeArchived) builder.whereNull('archived_at');
    if (query.orderIds.length > 0) builder.whereIn('order_id', query.orderIds);
    if (query.startDate !== null) builder.where('created_at', '>=', query.startDate);
    if (query.endDate !== null) builder.where('created_at', '<=', query.endDate);
    if (query.textSearch !== null) {
      const term = query.textSearch;
      const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      builder.where((any) =>
        any
          .where('session_id', term)
          .orWhereRaw('order_id ilike ?', [pattern])
          .orWhereRaw('metadata::text ilike ?', [pattern])
          .orWhereRaw("(checkout->'additionalSearchTerms')::text ilike ?", [pattern]),
      );
    }
    return builder;
  }

  /** The sessions of `rows` with their current invoices, in their order (a row whose session is gone is left out). */
  private async withSessions(
    projectId: string,
    rows: readonly InvoiceRow[],
  ): Promise<{ session: SessionView; row: InvoiceRow; current: CurrentInvoiceFacts | undefined }[]> {
    const out: { session: SessionView; row: InvoiceRow; current: CurrentInvoiceFacts | undefined }[] = [];
    for (let start = 0; start < rows.length; start += READ_CONCURRENCY) {
      const chunk = rows.slice(start, start + READ_CONCURRENCY);
      const read = await Promise.all(
        chunk.map(async (row) => {
          const session = await this.deps.sessionsCheckout.get(projectId, row.session_id).catch(absentSession);
          return session && { session, row, current: await currentInvoiceOf(this.deps.invoicesService, session) };
        }),
      );
      for (const entry of read) if (entry) out.push(entry);
    }
    return out;
  }
}

/** A session that is not there (a sandbox purge under way) reads as absent; anything else is thrown on. */
function absentSession(error: unknown): undefined {
  if (isAppError(error) && error.code === 'checkout_session_not_found') return undefined;
  throw error;
}

/** The mark a `MarkInvoiceStatusRequest` asks for (names case-insensitive); 422 on `status` otherwise. */
function markOf(body: unknown): MarkableStatus {
  const status = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)['status'] : undefined;
  const found = typeof status === 'string' ? (['Invalid', 'Settled'] as const).find((mark) => mark.toLowerCase() === status.toLowerCase()) : undefined;
  if (!found) throw validationFailed([{ path: 'status', message: 'The status must be Invalid or Settled.' }]);
  return found;
}

/** The sessions' refusal of a create as BTCPay's 422 list, the field renamed to BTCPay's path; anything else as it is. */
function refusedBySessions(error: unknown): unknown {
  if (!isAppError(error) || (error.code !== 'validation_error' && error.code !== 'coin_not_allowed')) return error;
  const field = typeof error.details?.['field'] === 'string' ? error.details['field'] : '';
  const root = field.split(/[.[]/)[0] ?? '';
  const path = SESSION_FIELD_PATHS[root] ?? field;
  // The sessions' messages open with their own field name; BTCPay's path reads better to a shop.
  const message = root !== '' && error.message.startsWith(root) ? `${path}${error.message.slice(root.length)}` : error.message;
  const issue: ValidationIssue = { path, message };
  return validationFailed([issue]);
}

/** An audit entry of a Greenfield write on an invoice (`btcpay_invoice.<action>`). */
function audit(actor: Actor, action: string, projectId: string, invoiceId: string, details: Record<string, unknown> = {}) {
  return {
    actor: actor.actor,
    channel: actor.channel,
    requestId: actor.requestId ?? null,
    action: `btcpay_invoice.${action}`,
    projectId,
    target: `checkout_session:${invoiceId}`,
    details,
  };
}

import type { AuditLog, ChainRegistry, InvoiceEvents, InvoiceEventType } from '@gw/kernel';
import type { Actor } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import { invoicesErrors } from '../errors.js';
import type { InvoiceStatus } from '../invoice-status.js';
import { transactionsByInvoice } from '../models/invoice-transaction.js';
import { Invoice } from '../models/invoice.js';
import { invoiceView, type InvoiceView } from './invoice-view.js';

/** One state change asked of an invoice. */
export interface TransitionRequest {
  readonly projectId: string;
  readonly invoiceId: string;
  /** Statuses the invoice may be in; any other is 409 `invalid_state_transition`. */
  readonly from: readonly InvoiceStatus[];
  /** The new status (equal to the current one for an event without a status change). */
  readonly to: InvoiceStatus;
  /** The event announcing the change; none for changes partners are not told about. */
  readonly event?: InvoiceEventType;
  /** A deterministic event id (ULID); emitting one that exists changes nothing (see InvoiceEvents). */
  readonly eventId?: string;
  readonly actor: Actor;
  /** Extra audit details (e.g. the observation that caused the change). */
  readonly details?: Record<string, unknown>;
}

export interface TransitionResult {
  readonly invoice: InvoiceView;
  readonly previousStatus: InvoiceStatus;
  /** The emitted event's id, when an event was asked for. */
  readonly eventId?: string;
}

/**
 * The one seam through which invoice statuses change after creation (watchers, the sandbox,
 * orphan attribution): the invoice row is locked, the precondition checked, the status written,
 * the change audited and its event emitted through the kernel's invoice events, all in one
 * transaction, so a partner is told of exactly the changes that committed.
 */
export class InvoiceTransitions {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; chains: ChainRegistry; invoiceEvents: InvoiceEvents }) {}

  /**
   * Applies `request` in `trx` (or a transaction of its own). Throws 404 `invoice_not_found` for
   * another project's invoice and 409 `invalid_state_transition` when the status is not in `from`.
   */
  async apply(request: TransitionRequest, trx?: Knex.Transaction): Promise<TransitionResult> {
    if (!trx) return this.deps.db.transaction((own) => this.apply(request, own));
    const invoice = await Invoice.query(trx).findOne({ id: request.invoiceId, project_id: request.projectId }).forUpdate();
    if (!invoice) throw invoicesErrors.invoice_not_found();
    if (!request.from.includes(invoice.status)) {
      throw invoicesErrors.invalid_state_transition({
        message: `The invoice is ${invoice.status}; this change needs ${request.from.join(' or ')}.`,
        details: { status: invoice.status, allowed_from: request.from, to: request.to },
      });
    }
    const updated = invoice.status === request.to ? invoice : await Invoice.query(trx).patchAndFetchById(invoice.id, { status: request.to, updated_at: new Date() });
    const view = invoiceView(updated, (await transactionsByInvoice(trx, [invoice.id])).get(invoice.id) ?? [], this.deps.chains);
    let eventId: string | undefined;
    if (request.event) {
      [eventId] = await this.deps.invoiceEvents.emit(trx, [
        {
          projectId: invoice.project_id,
          projectKind: invoice.project_kind,
          invoiceId: invoice.id,
          eventType: request.event,
          callbackUrl: invoice.callback_url,
          ...(request.eventId ? { eventId: request.eventId } : {}),
          data: { invoice_id: invoice.id, external_id: invoice.external_id, status: request.to, previous_status: invoice.status, invoice: view },
        },
      ]);
    }
    await this.deps.audit.record(
      {
        ...request.actor,
        action: 'invoice.transition',
        projectId: invoice.project_id,
        target: `invoice:${invoice.id}`,
        details: { from: invoice.status, to: request.to, ...(request.event ? { event_type: request.event, event_id: eventId ?? null } : {}), ...(request.details ?? {}) },
      },
      trx,
    );
    return { invoice: view, previousStatus: invoice.status, ...(eventId ? { eventId } : {}) };
  }
}

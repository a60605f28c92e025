import { newId, type AuditLog, type ChainRegistry, type InvoiceEvents, type InvoiceEventType } from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool';
import type { Actor } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import { invoicesErrors } from '../errors.js';
import { MAX_AMOUNT_UNITS } from './amounts.js';
import { WAITING_STATUSES, PAID_STATUSES, type InvoiceStatus } from '../invoice-status.js';
import { InvoiceTransaction, transactionsByInvoice } from '../models/invoice-transaction.js';
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
  /** A transfer to write with the change, upserted on (invoice, tx hash, output index). */
  readonly transaction?: TransactionWrite;
  /** A new status (and optionally confirmation count) for every existing transfer of the invoice. */
  readonly transactions?: { readonly status: TransactionStatus; readonly confirmations?: number };
  /** New status and confirmation count of single transfers of the invoice (watchers: per observed transfer). */
  readonly transactionUpdates?: readonly TransactionUpdate[];
  /** Extra `data` fields of the event (e.g. the paid amount of a partial payment). */
  readonly eventData?: Record<string, unknown>;
}

export type TransactionStatus = 'pending' | 'confirmed' | 'reverted';

/** A change to one transfer of the invoice, named by its hash and output index. */
export interface TransactionUpdate {
  readonly txHash: string;
  readonly outputIndex: number;
  readonly status: TransactionStatus;
  readonly confirmations: number;
  readonly blockHeight?: bigint | null;
  readonly blockHash?: string | null;
}

/** A transfer attributed to the invoice: observed on chain (watchers) or synthetic (sandbox). */
export interface TransactionWrite {
  readonly txHash: string;
  readonly outputIndex?: number;
  readonly amountUnits: bigint;
  readonly confirmations: number;
  readonly blockHeight: bigint | null;
  readonly blockHash: string | null;
  readonly status: TransactionStatus;
  readonly synthetic: boolean;
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
  constructor(private readonly deps: { db: Knex; audit: AuditLog; chains: ChainRegistry; invoiceEvents: InvoiceEvents; addressPoolService: AddressPoolService }) {}

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
    const now = new Date();
    const releases = WAITING_STATUSES.includes(invoice.status) && !WAITING_STATUSES.includes(request.to) && invoice.address_released_at === null;
    if (releases) await this.deps.addressPoolService.release(trx, invoice.pool_address_id);
    if (PAID_STATUSES.includes(request.to) && !PAID_STATUSES.includes(invoice.status)) await this.deps.addressPoolService.markPaid(trx, invoice.pool_address_id);
    const updated =
      invoice.status === request.to && !releases
        ? invoice
        : await Invoice.query(trx).patchAndFetchById(invoice.id, { status: request.to, updated_at: now, ...(releases ? { address_released_at: now } : {}) });
    if (request.transactions) {
      await InvoiceTransaction.query(trx)
        .where({ invoice_id: invoice.id })
        .patch({
          status: request.transactions.status,
          ...(request.transactions.confirmations === undefined ? {} : { confirmations: request.transactions.confirmations }),
          confirmed_at: request.transactions.status === 'confirmed' ? now : null,
        });
    }
    for (const update of request.transactionUpdates ?? []) {
      await InvoiceTransaction.query(trx)
        .where({ invoice_id: invoice.id, tx_hash: update.txHash, output_index: update.outputIndex })
        .patch({
          status: update.status,
          confirmations: update.confirmations,
          confirmed_at: update.status === 'confirmed' ? now : null,
          ...(update.blockHeight !== undefined ? { block_height: update.blockHeight === null ? null : (update.blockHeight.toString() as never) } : {}),
          ...(update.blockHash !== undefined ? { block_hash: update.blockHash } : {}),
        });
    }
    if (request.transaction) await this.writeTransaction(trx, invoice, request.transaction, now);
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
          data: { invoice_id: invoice.id, external_id: invoice.external_id, status: request.to, previous_status: invoice.status, ...(request.eventData ?? {}), invoice: view },
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

  /** Upserts `tx` as a transfer of `invoice` on (invoice, tx hash, output index), in `trx`. */
  async writeTransaction(trx: Knex.Transaction, invoice: Invoice, tx: TransactionWrite, now: Date = new Date()): Promise<void> {
    if (tx.amountUnits < 0n || tx.amountUnits > MAX_AMOUNT_UNITS) {
      throw invoicesErrors.amount_out_of_range({ message: 'A transfer amount must be between 0 and 2^256 - 1 base units.', details: { amount_units: tx.amountUnits.toString() } });
    }
    await trx.raw(
      `insert into invoices_transactions (id, invoice_id, project_id, chain, coin, tx_hash, output_index, to_address, amount_units,
                                          block_height, block_hash, confirmations, status, synthetic, detected_at, confirmed_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?::numeric, ?::bigint, ?, ?, ?, ?, ?, ?)
       on conflict (invoice_id, tx_hash, output_index) do update
          set amount_units = excluded.amount_units, block_height = excluded.block_height, block_hash = excluded.block_hash,
              confirmations = excluded.confirmations, status = excluded.status, confirmed_at = excluded.confirmed_at`,
      [
        newId(),
        invoice.id,
        invoice.project_id,
        invoice.chain,
        invoice.coin,
        tx.txHash,
        tx.outputIndex ?? 0,
        invoice.address,
        tx.amountUnits.toString(),
        tx.blockHeight === null ? null : tx.blockHeight.toString(),
        tx.blockHash,
        tx.confirmations,
        tx.status,
        tx.synthetic,
        now,
        tx.status === 'confirmed' ? now : null,
      ],
    );
  }
}

import { isAppError, newId, type ProjectKind, sql, sqlQuery } from '@gw/kernel';
import type { InvoiceService, InvoiceStatusChange, InvoiceView } from '@gw/plugin-invoices/contract';
import { type CheckoutSessions, sessionIdOfExternalId, type SessionStatusChange } from '@gw/plugin-sessions/contract';
import type { ProtocolDeliveries, ProtocolDelivery } from '@gw/plugin-webhooks/contract';
import type { Knex } from 'knex';
import { paymentMethodIdOf } from '../credentials/payment-method-ids.js';
import { currentInvoiceOf, type CurrentInvoiceFacts } from '../invoices/current-invoice.js';
import { greenfieldPayment, type InvoiceTransaction, isLive, paymentIdOf } from '../invoices/greenfield-payment.js';
import { stateOf } from '../invoices/invoice-data.js';
import type { BtcpayState, MarkableStatus } from '../invoices/status-table.js';
import { eventBody, type InvoiceEvent } from './event-bodies.js';
import { BTCPAY_SIGNER } from './event-types.js';
import type { BtcpayWebhooks } from './webhook-service.js';

/** A BTCPay invoice (a checkout session) as the invoices area names it to the webhooks. */
export interface BtcpayInvoiceRef {
  /** The session id (the BTCPay invoice id). */
  readonly sessionId: string;
  readonly projectId: string;
  readonly projectKind: ProjectKind;
}

/** What the webhooks area last announced of an invoice (`btcpay_webhook_invoices`). */
interface TrackRow {
  session_id: string;
  project_id: string;
  status: BtcpayState['status'];
  additional_status: BtcpayState['additionalStatus'];
  announced_payments: string[];
}

/** What the invoices area holds of the invoice (`btcpay_invoices`): read in the change's transaction. */
interface InvoiceRow {
  project_id: string;
  metadata: Record<string, unknown>;
  marked_status: MarkableStatus | null;
}

/** What moved the invoice: its creation, a merchant's mark, its session's status, or one of its invoices. */
type Cause =
  | { readonly kind: 'created' }
  | { readonly kind: 'marked' }
  | { readonly kind: 'session'; readonly change: SessionStatusChange }
  | { readonly kind: 'invoice'; readonly change: InvoiceStatusChange };

/**
 * Decides and enqueues the Greenfield invoice events of BTCPay invoices, in the transaction of
 * the change that causes them (the create, a mark, a session's completion or expiry, a status
 * change of one of its invoices): each one, for every enabled webhook of the store that takes its
 * type, is a protocol delivery of the webhooks plugin (`webhooksProtocolDeliveries`) with its own
 * delivery id, signed `BTCPay-Sig` when sent.
 *
 * The BTCPay state is `stateOf` the session as it is in the change's transaction (its status, its
 * current invoice `invoice_id`, whether that invoice's live payments cover its amount, the
 * merchant's mark): the same rule and the same source as `GET`. The state last announced is kept
 * per invoice in `btcpay_webhook_invoices`; each change of state sends `InvoiceProcessing`,
 * `InvoiceSettled`, `InvoiceExpired` or `InvoiceInvalid` (a status reached again after a
 * reorganisation too: Settled → Processing → Settled tells the shop each time; a re-settlement
 * short of the amount is `Invalid`, never `Settled`). A payment seen sends `InvoiceReceivedPayment`
 * once, a payment counted `InvoicePaymentSettled` once. The row is locked while deciding, so
 * concurrent changes of one invoice never announce twice.
 */
export class BtcpayWebhookEvents {
  constructor(
    private readonly deps: {
      invoicesService: InvoiceService;
      sessionsCheckout: CheckoutSessions;
      webhooksProtocolDeliveries: ProtocolDeliveries;
      btcpayWebhooks: BtcpayWebhooks;
    },
  ) {}

  /** `InvoiceCreated`, in the transaction that opens the invoice (after its `btcpay_invoices` row is written). */
  async created(trx: Knex.Transaction, invoice: BtcpayInvoiceRef): Promise<void> {
    await this.advance(trx, invoice, { kind: 'created' });
  }

  /** The events of a merchant's mark (`InvoiceSettled` / `InvoiceInvalid` with `manuallyMarked`), in its transaction, after `marked_status` is written. */
  async marked(trx: Knex.Transaction, invoice: BtcpayInvoiceRef): Promise<void> {
    await this.advance(trx, invoice, { kind: 'marked' });
  }

  /** A status change of an invoice (`INVOICE_OBSERVERS`): nothing unless it is an invoice of a BTCPay invoice's session. */
  async onInvoice(trx: Knex.Transaction, change: InvoiceStatusChange): Promise<void> {
    const sessionId = sessionIdOfExternalId(change.externalId);
    if (!sessionId) return;
    const invoice = { sessionId, projectId: change.projectId, projectKind: change.projectKind };
    await this.advance(trx, invoice, { kind: 'invoice', change });
  }

  /** A session's completion or expiry (`SESSION_OBSERVERS`): nothing unless the session is a BTCPay invoice. */
  async onSession(trx: Knex.Transaction, change: SessionStatusChange): Promise<void> {
    await this.advance(trx, { sessionId: change.sessionId, projectId: change.projectId, projectKind: change.projectKind }, { kind: 'session', change });
  }

  private async advance(trx: Knex.Transaction, ref: BtcpayInvoiceRef, cause: Cause): Promise<void> {
    const [invoice] = await sqlQuery<InvoiceRow>(trx, sql`select project_id, metadata, marked_status from btcpay_invoices where session_id = ${ref.sessionId}`);
    // Not a BTCPay invoice (a session of the REST API or of a payment link).
    if (!invoice || invoice.project_id !== ref.projectId) return;
    const inserted = await sqlQuery(
      trx,
      sql`insert into btcpay_webhook_invoices (session_id, project_id) values (${ref.sessionId}, ${ref.projectId}) on conflict (session_id) do nothing returning session_id`,
    );
    const [track] = await sqlQuery<TrackRow>(trx, sql`select * from btcpay_webhook_invoices where session_id = ${ref.sessionId} for update`);
    const announced = [...track!.announced_payments];
    // The session as the change leaves it (read in its transaction): its status and current invoice.
    const session = await this.deps.sessionsCheckout.get(ref.projectId, ref.sessionId, { trx });
    const current = await currentInvoiceOf(this.deps.invoicesService, session, trx);
    // The invoice whose payments may be new: the one that changed, or the one that completed the session.
    const paying = cause.kind === 'invoice' ? cause.change.invoiceId : cause.kind === 'session' ? cause.change.invoiceId : null;
    const changed = paying === null ? undefined : paying === current?.view.id ? current.view : await this.view(trx, ref.projectId, paying);
    const state = stateOf(session, invoice, current);

    const events: InvoiceEvent[] = [];
    const base = { storeId: ref.projectId, invoiceId: ref.sessionId, metadata: invoice.metadata ?? {} };
    if (cause.kind === 'created' && inserted.length > 0) events.push({ ...base, type: 'InvoiceCreated', fields: {}, gatewayInvoiceId: null });
    if (changed) {
      // As BTCPay: the invoice was (or now is) expired or invalid when the payment came.
      const afterExpiration = [track!.status, state.status].some((status) => status === 'Expired' || status === 'Invalid');
      for (const tx of changed.transactions) {
        if (tx.status !== 'pending' && tx.status !== 'confirmed') continue;
        const fields = { afterExpiration, paymentMethodId: paymentMethodIdOf(changed.coin), payment: greenfieldPayment(tx) };
        for (const type of tx.status === 'confirmed' ? (['InvoiceReceivedPayment', 'InvoicePaymentSettled'] as const) : (['InvoiceReceivedPayment'] as const)) {
          const key = `${type}:${paymentIdOf(tx)}`;
          if (announced.includes(key)) continue;
          announced.push(key);
          events.push({ ...base, type, fields, gatewayInvoiceId: changed.id });
        }
      }
    }
    const gatewayInvoiceId = session.invoice_id;
    if (state.status !== track!.status) {
      const paidSome = announced.some((key) => key.startsWith('InvoiceReceivedPayment:'));
      const status = statusEvent(state, current, paidSome);
      if (status) events.push({ ...base, ...status, gatewayInvoiceId });
    }

    await sqlQuery(
      trx,
      sql`update btcpay_webhook_invoices
             set status = ${state.status}, additional_status = ${state.additionalStatus},
                 announced_payments = ${JSON.stringify(announced)}::jsonb, updated_at = now()
           where session_id = ${ref.sessionId}`,
    );
    await this.enqueue(trx, ref, events);
  }

  /** Addresses `events` to every enabled webhook of the store that takes their type and writes them to the outbox. */
  private async enqueue(trx: Knex.Transaction, ref: BtcpayInvoiceRef, events: readonly InvoiceEvent[]): Promise<void> {
    if (events.length === 0) return;
    const subscribers = await this.deps.btcpayWebhooks.subscribers(trx, ref.projectId);
    const timestamp = Math.floor(Date.now() / 1000);
    const deliveries: ProtocolDelivery[] = [];
    for (const event of events) {
      for (const webhook of subscribers.filter((s) => s.takes(event.type))) {
        const deliveryId = newId();
        deliveries.push({
          id: deliveryId,
          projectId: ref.projectId,
          mode: ref.projectKind,
          invoiceId: event.gatewayInvoiceId,
          eventType: event.type,
          body: eventBody(event, { deliveryId, webhookId: webhook.id, timestamp }),
          targetUrl: webhook.url,
          signer: BTCPAY_SIGNER,
          signerRef: webhook.id,
        });
      }
    }
    await this.deps.webhooksProtocolDeliveries.enqueue(trx, deliveries);
  }

  /** An invoice of the project as it is in `trx`; undefined when it is not one of the project's. */
  private async view(trx: Knex.Transaction, projectId: string, invoiceId: string): Promise<InvoiceView | undefined> {
    try {
      return await this.deps.invoicesService.get(projectId, invoiceId, trx);
    } catch (error) {
      if (isAppError(error) && error.code === 'invoice_not_found') return undefined;
      throw error;
    }
  }
}

/** The live total of an invoice's payments (seen or counted), base units. */
function liveUnits(transactions: readonly InvoiceTransaction[]): bigint {
  return transactions.filter(isLive).reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
}

/**
 * The event of entering `state`'s status, with its fields; none for `New`. `paidSome`: a payment
 * to one of the invoice's coin invoices was announced (an expiry is then `partiallyPaid`, even when
 * the session's ending cancelled the invoice that got it, unless the full amount came late).
 */
function statusEvent(state: BtcpayState, current: CurrentInvoiceFacts | undefined, paidSome: boolean): Pick<InvoiceEvent, 'type' | 'fields'> | undefined {
  const marked = state.additionalStatus === 'Marked';
  switch (state.status) {
    case 'Processing':
      return {
        type: 'InvoiceProcessing',
        fields: { overPaid: current !== undefined && liveUnits(current.transactions) > BigInt(current.view.amount_crypto_units) },
      };
    case 'Settled':
      return { type: 'InvoiceSettled', fields: { manuallyMarked: marked, overPaid: state.additionalStatus === 'PaidOver' } };
    case 'Expired':
      // Paid in full after the deadline (PaidLate) is not partial.
      return {
        type: 'InvoiceExpired',
        fields: { partiallyPaid: state.additionalStatus === 'PaidPartial' || (paidSome && state.additionalStatus !== 'PaidLate') },
      };
    case 'Invalid':
      return { type: 'InvoiceInvalid', fields: { manuallyMarked: marked } };
    case 'New':
      return undefined;
  }
}

/** `InvoiceCreated` of an invoice the invoices area opens, in its create's transaction (call after its `btcpay_invoices` row is written). */
export function invoiceCreatedEvents(trx: Knex.Transaction, events: BtcpayWebhookEvents, invoice: BtcpayInvoiceRef): Promise<void> {
  return events.created(trx, invoice);
}

/** The events of a merchant's mark, in the mark's transaction (call after `marked_status` is written). */
export function invoiceMarkedEvents(trx: Knex.Transaction, events: BtcpayWebhookEvents, invoice: BtcpayInvoiceRef): Promise<void> {
  return events.marked(trx, invoice);
}

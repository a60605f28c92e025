import { type PayoutEventType, type RefundEventType, WEBHOOK_EVENT_TYPES } from '@gw/webhook-verify';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ProjectKind } from '@gw/chain-api';

/**
 * The seven outbound event types of spec section 6. The webhook wire contract owns the list
 * (`@gw/webhook-verify`, which partners use without the gateway); the kernel names it here.
 */
export const INVOICE_EVENT_TYPES = WEBHOOK_EVENT_TYPES;

export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

/** Every event type the outbox carries: the invoice events and the refund and payout events (issue 37). */
export type OutboundEventType = InvoiceEventType | RefundEventType | PayoutEventType;

/**
 * One invoice state change, as its producer (invoices, watchers, sandbox, orphans) announces it.
 * The envelope's `mode` is the project kind; `data` is what a partner needs to act without a
 * second call and is delivered as given (it must contain `invoice_id`).
 */
export interface InvoiceEvent {
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  /** Null for events of no invoice (payouts). */
  readonly invoiceId: string | null;
  readonly eventType: OutboundEventType;
  /** Invoice events carry `invoice_id`; refund and payout events their `MoneyOutEventData`. */
  readonly data: Record<string, unknown>;
  /** The invoice's own target; null sends to the project's default webhook URL (if any). */
  readonly callbackUrl: string | null;
  /**
   * A caller-chosen event id (a ULID) for events that must be idempotent (the sandbox derives
   * `invoice.paid`'s id from the invoice). Emitting an id that already exists changes nothing.
   * Default: a fresh id.
   */
  readonly eventId?: string;
}

/** Where events go: the webhooks plugin's outbox. */
export interface InvoiceEventSink {
  /**
   * Writes the events and their delivery jobs inside `trx`, so they exist if and only if the
   * state change that caused them commits. Returns the event ids, in order.
   */
  emit(trx: Knex.Transaction, events: readonly InvoiceEvent[]): Promise<string[]>;
}

/**
 * The kernel's extension point between the producers of invoice state changes and the outbox
 * (architecture: plugins talk through the kernel). Producers call `emit` in the transaction of
 * the change; the webhooks plugin attaches the sink when it starts.
 */
export interface InvoiceEvents {
  /** Attaches the sink (one per process; a second attach replaces nothing and throws). */
  attach(sink: InvoiceEventSink): void;
  /**
   * Emits in `trx`. Without a sink (the webhooks plugin disabled by the operator) the events are
   * not recorded anywhere; that is logged once per process, and the state change still commits.
   */
  emit(trx: Knex.Transaction, events: readonly InvoiceEvent[]): Promise<string[]>;
}

export function createInvoiceEvents(logger: Logger): InvoiceEvents {
  let sink: InvoiceEventSink | undefined;
  let warned = false;
  return {
    attach(next) {
      if (sink && sink !== next) throw new Error('an invoice event sink is already attached');
      sink = next;
    },
    async emit(trx, events) {
      if (events.length === 0) return [];
      if (!sink) {
        if (!warned) logger.warn('invoice events are not delivered: no event sink (is the webhooks plugin disabled?)');
        warned = true;
        return [];
      }
      return sink.emit(trx, events);
    },
  };
}

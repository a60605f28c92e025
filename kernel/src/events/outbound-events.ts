import {
  GATEWAY_EVENT_TYPES,
  PAYOUT_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  SESSION_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type GatewayEventType,
  type MoneyOutEventData,
  type MoneyOutEventType,
  type SessionEventData,
  type SessionEventType,
} from '@gw/webhook-verify';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ProjectKind } from '@gw/chain-api';

/**
 * The seven outbound invoice event types of spec section 6. The webhook wire contract owns the
 * lists (`@gw/webhook-verify`, which partners use without the gateway); the kernel names them here.
 */
export const INVOICE_EVENT_TYPES = WEBHOOK_EVENT_TYPES;
export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

/** The refund and payout event types (issue 37), additions beside the seven that change none of them. */
export const MONEY_OUT_EVENT_TYPES = [...REFUND_EVENT_TYPES, ...PAYOUT_EVENT_TYPES] as const;
export type { MoneyOutEventType };

/** The checkout session event types (issue 38), additions beside the invoice events of the sessions' invoices. */
export { SESSION_EVENT_TYPES };
export type { SessionEventType };

/** Every type of event that goes through the outbox: the seven invoice events, then refunds and payouts, then checkout sessions. */
export const OUTBOUND_EVENT_TYPES = GATEWAY_EVENT_TYPES;
export type OutboundEventType = GatewayEventType;

/** What every outbound event carries besides its type and data. */
interface OutboundEventBase {
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  /**
   * The target; null sends to the project's default webhook URL (if any). A resend resolves it
   * again: an event with an `invoiceId` goes to that invoice's `callback_url` (else the default),
   * so an event of an invoice (a refund's too) should be emitted with the invoice's `callback_url`.
   */
  readonly callbackUrl: string | null;
  /**
   * A caller-chosen event id (a ULID) for events that must be idempotent (the sandbox derives
   * `invoice.paid`'s id from the invoice). Emitting an id that already exists changes nothing.
   * Default: a fresh id.
   */
  readonly eventId?: string;
}

/**
 * One invoice state change, as its producer (invoices, watchers, sandbox, orphans) announces it.
 * The envelope's `mode` is the project kind; `data` is what a partner needs to act without a
 * second call and is delivered as given (it must contain `invoice_id`).
 */
export interface InvoiceEvent extends OutboundEventBase {
  readonly invoiceId: string;
  readonly eventType: InvoiceEventType;
  readonly data: { readonly invoice_id: string } & Record<string, unknown>;
}

/**
 * One refund or payout status change (the payouts plugin). `invoiceId` is the refunded invoice
 * (the event is then listed with the invoice's events), null for a payout; `data` is delivered as
 * given.
 */
export interface MoneyOutEvent extends OutboundEventBase {
  readonly invoiceId: string | null;
  readonly eventType: MoneyOutEventType;
  readonly data: MoneyOutEventData;
}

/**
 * One checkout session status change (the sessions plugin). `invoiceId` is the invoice that paid
 * the session (the event is then listed with that invoice's events), null for an expiry; `data` is
 * delivered as given.
 */
export interface SessionEvent extends OutboundEventBase {
  readonly invoiceId: string | null;
  readonly eventType: SessionEventType;
  readonly data: SessionEventData;
}

/** Any event the outbox stores, signs and delivers. */
export type OutboundEvent = InvoiceEvent | MoneyOutEvent | SessionEvent;

/** Where events go: the webhooks plugin's outbox. */
export interface OutboundEventSink {
  /**
   * Writes the events and their delivery jobs inside `trx`, so they exist if and only if the
   * state change that caused them commits. Returns the event ids, in order.
   */
  emit(trx: Knex.Transaction, events: readonly OutboundEvent[]): Promise<string[]>;
}

/**
 * The kernel's extension point between the producers of state changes and the outbox
 * (architecture: plugins talk through the kernel). Producers call `emit` in the transaction of
 * the change; the webhooks plugin attaches the sink when it starts. Registered in the cradle as
 * `invoiceEvents`, the name it had when invoices were its only producer (the issue 37 design and
 * every producer call it so); it carries refund, payout and checkout session events as well.
 */
export interface OutboundEvents {
  /** Attaches the sink (one per process; a second attach replaces nothing and throws). */
  attach(sink: OutboundEventSink): void;
  /**
   * Emits in `trx`. Without a sink (the webhooks plugin disabled by the operator) the events are
   * not recorded anywhere; that is logged once per process, and the state change still commits.
   */
  emit(trx: Knex.Transaction, events: readonly OutboundEvent[]): Promise<string[]>;
}

export function createOutboundEvents(logger: Logger): OutboundEvents {
  let sink: OutboundEventSink | undefined;
  let warned = false;
  return {
    attach(next) {
      if (sink && sink !== next) throw new Error('an event sink is already attached');
      sink = next;
    },
    async emit(trx, events) {
      if (events.length === 0) return [];
      if (!sink) {
        if (!warned) logger.warn('webhook events are not delivered: no event sink (is the webhooks plugin disabled?)');
        warned = true;
        return [];
      }
      return sink.emit(trx, events);
    },
  };
}

import { WEBHOOK_EVENT_TYPES } from '@gw/webhook-verify';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { ProjectKind } from '../chain.js';

/**
 * The seven outbound event types of spec section 6. The webhook wire contract owns the list
 * (`@gw/webhook-verify`, which partners use without the gateway); the kernel names it here.
 */
export const INVOICE_EVENT_TYPES = WEBHOOK_EVENT_TYPES;

export type InvoiceEventType = (typeof INVOICE_EVENT_TYPES)[number];

/**
 * One invoice state change, as its producer (invoices, watchers, sandbox, orphans) announces it.
 * The envelope's `mode` is the project kind; `data` is what a partner needs to act without a
 * second call and is delivered as given (it must contain `invoice_id`).
 */
export interface InvoiceEvent {
  readonly projectId: string;
  readonly projectKind: ProjectKind;
  readonly invoiceId: string;
  readonly eventType: InvoiceEventType;
  readonly data: { readonly invoice_id: string } & Record<string, unknown>;
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

/**
 * `gateway_invoice_transitions_total{event}`: invoice state changes by this process, by the event
 * each announced (`invoice.created`, `invoice.paid`, ...), counted once their transaction commits.
 */
function transitionsCounter(registry: Registry | undefined): Counter<'event'> | undefined {
  if (!registry) return undefined;
  return new Counter({
    name: 'gateway_invoice_transitions_total',
    help: 'Invoice state changes committed by this process, by the event that announced them.',
    labelNames: ['event'],
    registers: [registry],
  });
}

export function createInvoiceEvents(logger: Logger, registry?: Registry): InvoiceEvents {
  let sink: InvoiceEventSink | undefined;
  let warned = false;
  const transitions = transitionsCounter(registry);
  const count = (trx: Knex.Transaction, events: readonly InvoiceEvent[]) => {
    if (!transitions) return;
    const byType = new Map<string, number>();
    for (const event of events) byType.set(event.eventType, (byType.get(event.eventType) ?? 0) + 1);
    // Counted when the change commits; a rolled-back transaction changed nothing.
    const committed = (trx as Knex.Transaction & { executionPromise?: Promise<unknown> }).executionPromise;
    const record = () => {
      for (const [event, n] of byType) transitions.inc({ event }, n);
    };
    if (committed) committed.then(record, () => undefined);
    else record();
  };
  return {
    attach(next) {
      if (sink && sink !== next) throw new Error('an invoice event sink is already attached');
      sink = next;
    },
    async emit(trx, events) {
      if (events.length === 0) return [];
      count(trx, events);
      if (!sink) {
        if (!warned) logger.warn('invoice events are not delivered: no event sink (is the webhooks plugin disabled?)');
        warned = true;
        return [];
      }
      return sink.emit(trx, events);
    },
  };
}

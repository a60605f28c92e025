import type { OutboundEventType } from '@gw/kernel';

/**
 * Delivery statuses of an event (spec 3.2). `retrying`: waiting for its first or next attempt;
 * `delivered`: a 2xx arrived; `dlq`: every attempt failed; `skipped`: no target existed.
 */
export const DELIVERY_STATUSES = ['delivered', 'retrying', 'dlq', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The type of a logged event: one of the gateway's outbound event types, or, for a protocol
 * delivery (`signer` set, `WEBHOOK_SIGNERS`), the protocol's own type (BTCPay's `InvoiceSettled`).
 */
export type LoggedEventType = OutboundEventType | ProtocolEventType;

/** A protocol delivery's own event type, as its plugin names it. */
export type ProtocolEventType = string;

/**
 * The notification an outbox write (or a redelivery) sends in its transaction when it makes an
 * event due: delivery workers wake on it instead of waiting for their next look (payload unused).
 * Deliveries themselves are the `webhooks_events` rows, claimed by the workers (ADR 0013).
 */
export const DUE_CHANNEL = 'webhooks.due';

/**
 * The pg-boss queue of redeliveries asked for while the event was still on its way (the sandbox's
 * duplicate delivery): one job per request, run after the pending attempt.
 */
export const REDELIVER_JOB = 'webhooks.redeliver';

/** Payload of a redelivery job. */
export interface RedeliverJobData {
  readonly eventId: string;
}

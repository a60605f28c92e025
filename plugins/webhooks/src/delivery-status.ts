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

/** The pg-boss queue of deliveries: one job per attempt. */
export const DELIVER_JOB = 'webhooks.deliver';

/**
 * Payload of a delivery job: which event, which attempt (1-based) it is, and the event's project,
 * so the worker loads the signing secrets while it loads the events.
 */
export interface DeliverJobData {
  readonly eventId: string;
  readonly attempt: number;
  readonly projectId: string;
}

/**
 * The pg-boss queue of redeliveries asked for while the event was still on its way (the sandbox's
 * duplicate delivery): one job per request, run after the pending attempt.
 */
export const REDELIVER_JOB = 'webhooks.redeliver';

/** Payload of a redelivery job. */
export interface RedeliverJobData {
  readonly eventId: string;
}

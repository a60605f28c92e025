/**
 * Delivery statuses of an event (spec 3.2). `retrying`: waiting for its first or next attempt;
 * `delivered`: a 2xx arrived; `dlq`: every attempt failed; `skipped`: no target existed.
 */
export const DELIVERY_STATUSES = ['delivered', 'retrying', 'dlq', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** The pg-boss queue of deliveries: one job per attempt. */
export const DELIVER_JOB = 'webhooks.deliver';

/** Payload of a delivery job: which event, and which attempt (1-based) it is. */
export interface DeliverJobData {
  readonly eventId: string;
  readonly attempt: number;
}

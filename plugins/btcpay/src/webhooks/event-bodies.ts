import type { BtcpayWebhookEventType } from './event-types.js';

/** An invoice event before it is addressed to a webhook. */
export interface InvoiceEvent {
  readonly type: BtcpayWebhookEventType;
  /** The store (project) id. */
  readonly storeId: string;
  /** The BTCPay invoice id (the checkout session id). */
  readonly invoiceId: string;
  /** The invoice's metadata as the shop gave it. */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The fields of its type (`manuallyMarked`, `overPaid`, `partiallyPaid`, `afterExpiration`, `paymentMethodId`, `payment`), in BTCPay's order. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** The gateway invoice it is about (a payment's invoice, or the session's current one), for the delivery log; null before a pick. */
  readonly gatewayInvoiceId: string | null;
}

/** What addresses one delivery of an event. */
export interface DeliveryAddress {
  readonly deliveryId: string;
  readonly webhookId: string;
  /** Unix seconds when the delivery was created. */
  readonly timestamp: number;
}

/**
 * The body of one delivery, as BTCPay serialises its `WebhookInvoiceEvent`s: camelCase, indented,
 * the delivery's fields first (`originalDeliveryId` is the delivery itself on a first delivery,
 * `isRedelivery` false), then the store, the invoice, its metadata and the type's own fields.
 */
export function eventBody(event: InvoiceEvent, address: DeliveryAddress): string {
  return JSON.stringify(
    {
      deliveryId: address.deliveryId,
      webhookId: address.webhookId,
      originalDeliveryId: address.deliveryId,
      isRedelivery: false,
      type: event.type,
      timestamp: address.timestamp,
      storeId: event.storeId,
      invoiceId: event.invoiceId,
      metadata: event.metadata,
      ...event.fields,
    },
    null,
    2,
  );
}

/**
 * The body of a redelivery (BTCPay's `Redeliver`): the original body with a new `deliveryId`,
 * `isRedelivery: true` and `originalDeliveryId` still naming the first delivery (a redelivery of a
 * redelivery too); everything else, the timestamp included, as first sent.
 */
export function redeliveryBody(body: string, deliveryId: string, originalDeliveryId: string): string {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  const original = typeof parsed['originalDeliveryId'] === 'string' ? parsed['originalDeliveryId'] : originalDeliveryId;
  return JSON.stringify({ ...parsed, deliveryId, originalDeliveryId: original, isRedelivery: true }, null, 2);
}

import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { BtcpayWebhookEventType } from './event-types.js';

/** One payment as BTCPay's webhooks and invoice payment methods show it (its `Payment` schema). */
export interface GreenfieldPayment {
  /** `<transaction hash>-<output index>`, as BTCPay names an on-chain payment. */
  readonly id: string;
  /** Unix seconds when the payment was first seen. */
  readonly receivedDate: number;
  /** Decimal string in the coin. */
  readonly value: string;
  /** The payment method's fee: none here (the payer pays the network fee). */
  readonly fee: string;
  readonly status: 'Invalid' | 'Processing' | 'Settled';
  /** The address it was paid to. */
  readonly destination: string;
}

type InvoiceTransaction = InvoiceView['transactions'][number];

/**
 * A transaction of an invoice as a Greenfield payment: `Settled` once counted in the invoice's
 * settled status, `Processing` while seen and not yet counted, `Invalid` when it left the chain or
 * the mempool.
 */
export function greenfieldPayment(tx: InvoiceTransaction): GreenfieldPayment {
  return {
    id: paymentIdOf(tx),
    receivedDate: tx.detected_at,
    value: tx.amount_crypto,
    fee: '0',
    status: tx.status === 'confirmed' ? 'Settled' : tx.status === 'pending' ? 'Processing' : 'Invalid',
    destination: tx.to_address,
  };
}

/** BTCPay's id of an on-chain payment: `<transaction hash>-<output index>`. */
export function paymentIdOf(tx: Pick<InvoiceTransaction, 'tx_hash' | 'output_index'>): string {
  return `${tx.tx_hash}-${tx.output_index}`;
}

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

import { extensionPoint } from '@gw/kernel';

/** One attempt of a protocol delivery, as its signer is asked to sign it. */
export interface SigningItem {
  /** The signer's subscription the delivery goes to (`signer_ref`, e.g. a BTCPay webhook id). */
  readonly ref: string;
  readonly projectId: string;
  /** The exact body the attempt sends. */
  readonly body: string;
  /** The event's id (the delivery id). */
  readonly eventId: string;
  /** The protocol's own event type (e.g. `InvoiceSettled`). */
  readonly eventType: string;
  /** The attempt about to be made, 1 for the first. */
  readonly attempt: number;
}

/** How one attempt of a protocol delivery is sent. */
export interface SignedRequest {
  /** Headers added to the POST (the signature, e.g. `BTCPay-Sig`); content type and length are the sender's. */
  readonly headers: Readonly<Record<string, string>>;
  /** Whether a failed attempt is retried on the plugin's schedule; false: the first failure dead-letters it. */
  readonly retry: boolean;
  /** The subscription's URL now, when it differs from the event's target (it was changed since): the attempt goes there. */
  readonly url?: string;
}

/**
 * A plugin that delivers webhooks in a protocol of its own (the btcpay plugin: BTCPay's bodies and
 * `BTCPay-Sig`) through this plugin's outbox, retries and delivery log, signing each attempt with its
 * subscription's own secret instead of the project's API secrets. Its events are written with
 * `webhooksProtocolDeliveries.enqueue`, naming the signer by `id`.
 */
export interface WebhookSigner {
  /** The `signer` of its events (the contributing plugin's id). */
  readonly id: string;
  /**
   * Signs a batch of attempts, one answer per item in order. `undefined`: the subscription is gone
   * or no longer takes this event (deleted, disabled, its events narrowed): the delivery ends
   * without being sent (`skipped`) and is not retried. Called just before the attempts are made;
   * a throw fails the batch before anything is sent (its jobs are retried).
   */
  sign(items: readonly SigningItem[]): Promise<(SignedRequest | undefined)[]>;
  /**
   * The body of a resend (`POST .../events/{id}/resend`, the dashboard's resend): the original
   * delivery's `body` made into a new delivery `eventId` of the same event, in the protocol's own
   * terms (BTCPay: a new `deliveryId`, `isRedelivery: true`, the first delivery's `originalDeliveryId`).
   */
  resendBody(item: { readonly ref: string; readonly body: string; readonly eventId: string; readonly originalEventId: string }): string;
}

/** Signers of protocol deliveries, contributed by other plugins (`contribute(WEBHOOK_SIGNERS, …)`, ADR 0011). */
export const WEBHOOK_SIGNERS = extensionPoint<WebhookSigner>('webhooks.signers');

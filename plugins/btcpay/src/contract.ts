/**
 * The contract of the btcpay plugin (issue 39: a BTCPay Greenfield-compatible API, so the shop
 * plugins written against BTCPay's client library work unchanged). Other plugins import nothing of
 * it but this file; no service is exported to them (ADR 0009).
 *
 * The concepts, mapped (docs/btcpay-compatibility.md):
 * - a **store** is a project of the operator the API key belongs to;
 * - a store's **payment methods** are the project's enabled coins with a verified wallet;
 * - a BTCPay **invoice** is a checkout session of the sessions plugin (same id), its checkout link the
 *   session's hosted page where the payer picks the coin; `btcpay_invoices` holds what Greenfield
 *   adds (order id, metadata, checkout options, a status the merchant marked);
 * - a **webhook** is the store's Greenfield subscription, signed `BTCPay-Sig: sha256=<hex>` with its
 *   own secret and delivered through the webhooks plugin's outbox, retries and delivery log;
 * - a **refund** of an invoice is a refund of the payouts plugin, answered as a pull payment.
 */
import type { ServiceName } from '@gw/kernel';

/** Who calls the Greenfield API: the key of `Authorization: token <key>` and what it was granted. */
export interface BtcpayPrincipal {
  readonly keyId: string;
  /** The operator the key belongs to: it reaches that operator's projects only. */
  readonly operatorId: string;
  /** The user who approved the key (BTCPay's `userId`). */
  readonly userId: string;
  readonly label: string;
  /** BTCPay permission strings as granted; store-bound ones end in `:<storeId>`. */
  readonly permissions: readonly string[];
}

declare module '@gw/kernel' {
  interface Cradle {
    readonly btcpayConfig: import('./config.js').BtcpayConfig;
    // Each area adds its services here, one line each.
    /** Greenfield API keys: create (shown once), authenticate, list, revoke (credentials area). */
    readonly btcpayApiKeys: import('./credentials/api-key-service.js').BtcpayApiKeys;
    /** Greenfield pull payments: refunds of BTCPay invoices through the payouts plugin, read back by pull payment id (refunds area). */
    readonly btcpayPullPayments: import('./refunds/pull-payments.js').PullPayments;
    /** A store's Greenfield webhooks: create, read, replace, delete, their subscribers and secrets (webhooks area). */
    readonly btcpayWebhooks: import('./webhooks/webhook-service.js').BtcpayWebhooks;
    /** BTCPay's invoice events, decided and enqueued in the transactions that cause them (webhooks area). */
    readonly btcpayWebhookEvents: import('./webhooks/invoice-events.js').BtcpayWebhookEvents;
    /** BTCPay invoices, which are checkout sessions: create, read, list, payment methods, mark, archive (invoices area). */
    readonly btcpayInvoices: import('./invoices/btcpay-invoices.js').BtcpayInvoices;
    /** A store's payment methods (coins with a verified wallet) and the payment method id rule (credentials area). */
    readonly btcpayStorePaymentMethods: import('./credentials/store-payment-methods.js').StorePaymentMethods;
  }
}

/** The services other plugins may declare: none (the plugin serves HTTP and contributes pages). */
export const BTCPAY_EXPORTS: readonly ServiceName[] = [];

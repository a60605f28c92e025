import { contribute, service, withDeps } from '@gw/kernel';
import { INVOICE_OBSERVERS, type InvoiceObserver } from '@gw/plugin-invoices/contract';
import { SESSION_OBSERVERS, type SessionObserver } from '@gw/plugin-sessions/contract';
import { WEBHOOK_SIGNERS } from '@gw/plugin-webhooks/contract';
import { m0002BtcpayWebhookInvoices } from '../../migrations/0002_btcpay_webhook_invoices.js';
import { m0006BtcpayWebhookInvoicesOneSource } from '../../migrations/0006_btcpay_webhook_invoices_one_source.js';
import type { BtcpayArea } from '../area.js';
import { BtcpayWebhookEvents } from './invoice-events.js';
import { webhookRoutes } from './routes.js';
import { BtcpayWebhooks } from './webhook-service.js';
import { btcpayWebhookSigner } from './webhook-signer.js';

/**
 * Greenfield webhooks: create, get, update, delete (and their deliveries); BTCPay's invoice events,
 * decided in the transactions that cause them (the invoices area's create and mark, and the
 * observers of invoices and sessions), delivered through the webhooks plugin's outbox, retries and
 * delivery log with `BTCPay-Sig` (its `WEBHOOK_SIGNERS`).
 */
export const webhooksArea: BtcpayArea = {
  services: () => ({
    btcpayWebhooks: service(['db', 'audit', 'secretBox', 'webhooksProtocolDeliveries'], (deps) => new BtcpayWebhooks(deps)),
    btcpayWebhookEvents: service(
      ['invoicesService', 'sessionsCheckout', 'webhooksProtocolDeliveries', 'btcpayWebhooks'],
      (deps) => new BtcpayWebhookEvents(deps),
    ),
  }),
  routes: withDeps(['btcpayConfig', 'btcpayWebhooks', 'webhooksProtocolDeliveries', 'webhooksEventLog'], (deps) => webhookRoutes(deps)),
  contributes: [
    contribute(
      WEBHOOK_SIGNERS,
      withDeps(['btcpayWebhooks'], (deps) => [btcpayWebhookSigner(() => deps.btcpayWebhooks)]),
    ),
    // Payments and statuses of a BTCPay invoice's coin invoices, in the transaction that changes them.
    contribute(
      INVOICE_OBSERVERS,
      withDeps(['btcpayWebhookEvents'], (deps): InvoiceObserver[] => [{ onStatus: (trx, change) => deps.btcpayWebhookEvents.onInvoice(trx, change) }]),
    ),
    // A BTCPay invoice's completion or expiry, in the session's transaction.
    contribute(
      SESSION_OBSERVERS,
      withDeps(['btcpayWebhookEvents'], (deps): SessionObserver[] => [{ onSession: (trx, change) => deps.btcpayWebhookEvents.onSession(trx, change) }]),
    ),
  ],
  migrations: [m0002BtcpayWebhookInvoices, m0006BtcpayWebhookInvoicesOneSource],
};

/**
 * The Greenfield webhook event types this gateway sends (BTCPay's `WebhookEventType` of invoices),
 * in the order BTCPay documents them. A webhook may name other types in `specificEvents` (BTCPay
 * accepts any string there); they are kept and never sent.
 */
export const BTCPAY_WEBHOOK_EVENT_TYPES = [
  'InvoiceCreated',
  'InvoiceReceivedPayment',
  'InvoicePaymentSettled',
  'InvoiceProcessing',
  'InvoiceExpired',
  'InvoiceSettled',
  'InvoiceInvalid',
] as const;
export type BtcpayWebhookEventType = (typeof BTCPAY_WEBHOOK_EVENT_TYPES)[number];

/** The `signer` of the btcpay plugin's deliveries in the webhooks plugin's outbox (`WEBHOOK_SIGNERS`). */
export const BTCPAY_SIGNER = 'btcpay';

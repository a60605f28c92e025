/**
 * `@gw/client`: the gateway's TypeScript client for partners. Signed requests (spec 5.1), every
 * REST and sandbox operation typed from the OpenAPI document, typed errors, safe retries, cursor
 * pagination and webhook verification, on web `fetch` and Web Crypto only.
 *
 * @packageDocumentation
 */
export { GatewayClient, isIdempotent, type GatewayClientOptions, type PageItem } from './client.js';
export { GatewayConnectionError, GatewayError, WebhookVerificationError, type ErrorBody } from './errors.js';
export { signRequest, signingString, signingTarget, type SignRequestInput, type SignedHeaders } from './signing.js';
export { parseRetryAfter, type TransportOptions } from './transport.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  WEBHOOK_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  PAYOUT_EVENT_TYPES,
  GATEWAY_EVENT_TYPES,
  isMoneyOutEventType,
  WEBHOOK_USER_AGENT,
  constructWebhookEvent,
  parseSignatureHeader,
  signWebhook,
  verifyWebhook,
  type VerifyWebhookInput,
  type WebhookEnvelope,
  type GatewayEventType,
  type InvoiceWebhookEnvelope,
  type MoneyOutEventData,
  type MoneyOutEventType,
  type PayoutEventData,
  type PayoutEventType,
  type PayoutWebhookEnvelope,
  type RefundEventData,
  type RefundEventType,
  type RefundWebhookEnvelope,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookVerifyFailure,
  type WebhookVerifyResult,
} from './webhooks.js';
export {
  MONEY_OUT_STATUSES,
  PAYOUT_SIMULATIONS,
  REFUND_RATE_RULES,
  REFUND_SIMULATIONS,
  type CreateRefundInput,
  type IdempotencyOptions,
  type MoneyOutItem,
  type MoneyOutListQuery,
  type MoneyOutPage,
  type MoneyOutStatus,
  type Payout,
  type PayoutRecipientInput,
  type PayoutSimulation,
  type Refund,
  type RefundRateRule,
  type RefundSimulation,
} from './money-out.js';
export { OPERATIONS, type Operations } from './generated/operations.js';
export type * from './operation-types.js';

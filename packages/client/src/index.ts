/**
 * `@gw/client`: the gateway's TypeScript client for partners. Signed requests (spec 5.1), every
 * REST and sandbox operation typed from the OpenAPI document, typed errors, safe retries, cursor
 * pagination and webhook verification, on web `fetch` and Web Crypto only.
 *
 * @packageDocumentation
 */
export {
  GatewayClient,
  isIdempotent,
  isSandboxSecret,
  SANDBOX_SECRET_PREFIX,
  SANDBOX_TWINS,
  type GatewayClientOptions,
  type PageItem,
  type WalletEntry,
} from './client.js';
export { GatewayConnectionError, GatewayError, WebhookVerificationError, type ErrorBody } from './errors.js';
export { signRequest, signingString, signingTarget, type SignRequestInput, type SignedHeaders } from './signing.js';
export { parseRetryAfter, type TransportOptions } from './transport.js';
/** Webhook verification and the wire contract's names (header names, event types, envelopes). */
export * from './webhooks.js';
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
export {
  CHECKOUT_SESSION_STATUSES,
  type CheckoutSession,
  type CheckoutSessionPage,
  type CheckoutSessionQuery,
  type CheckoutSessionStatus,
  type CreateCheckoutSessionInput,
  type CreatePaymentLinkInput,
  type PaymentLink,
  type PaymentLinkPage,
  type PaymentLinkQuery,
} from './sessions.js';
export { OPERATIONS, type Operations } from './generated/operations.js';
export type * from './operation-types.js';
export {
  X402_FACILITATOR_PATH,
  gatewayAsset,
  gatewayPayTo,
  x402FacilitatorToken,
  type X402AssetInfo,
  type X402FacilitatorAccess,
  type X402PayToContext,
} from './x402.js';

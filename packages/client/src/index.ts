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
  SIGNATURE_HEADER,
  WEBHOOK_EVENT_TYPES,
  constructWebhookEvent,
  parseSignatureHeader,
  signWebhook,
  verifyWebhook,
  type VerifyWebhookInput,
  type WebhookEnvelope,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookVerifyFailure,
  type WebhookVerifyResult,
} from './webhooks.js';
export { OPERATIONS, type Operations } from './generated/operations.js';
export type * from './operation-types.js';

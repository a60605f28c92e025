/**
 * Verification (and, for tests and `gateway listen`, signing) of webhook deliveries, spec 5.2, on
 * Web Crypto so it runs wherever `fetch` does (and so it is async). Everything but the HMAC is the
 * wire contract of `@gw/webhook-verify/contract`, which the build bundles: header names, event
 * types, the envelope, the header's parsing, the timestamp window and the comparison.
 */
import {
  assertSigningInput,
  checkSignatureHeader,
  parseWebhookEnvelope,
  signatureHeader,
  signatureVerdict,
  signedPrefix,
  type WebhookCheckInput,
  type WebhookEnvelope,
  type WebhookVerifyResult,
} from '@gw/webhook-verify/contract';
import { WebhookVerificationError } from './errors.js';
import { concatBytes, hmacSha256Hex, utf8Encoder } from './web-crypto.js';

export {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  parseSignatureHeader,
  SIGNATURE_HEADER,
  WEBHOOK_EVENT_TYPES,
  REFUND_EVENT_TYPES,
  PAYOUT_EVENT_TYPES,
  SESSION_EVENT_TYPES,
  GATEWAY_EVENT_TYPES,
  isMoneyOutEventType,
  isSessionEventType,
  WEBHOOK_USER_AGENT,
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
  type SessionEventData,
  type SessionEventType,
  type SessionWebhookEnvelope,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookVerifyFailure,
  type WebhookVerifyResult,
} from '@gw/webhook-verify/contract';

export interface VerifyWebhookInput extends WebhookCheckInput {
  /** The body exactly as received, before JSON parsing; bytes preferred. */
  readonly rawBody: string | Uint8Array;
}

/**
 * Checks, in order: the header's shape, the timestamp window (inclusive), then every
 * (secret, `v1`) pair in constant time without an early exit.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookVerifyResult> {
  const checked = checkSignatureHeader(input);
  if (!checked.ok) return checked;
  const message = signedPayload(checked.header.timestamp, input.rawBody);
  const expected: string[] = [];
  for (const secret of input.secrets) expected.push(await hmacSha256Hex(secret, message));
  return signatureVerdict(checked.header, expected);
}

/**
 * Verifies a delivery and returns its parsed envelope; throws {@link WebhookVerificationError}
 * (answer 401, or 400 for `invalid_json`) otherwise.
 */
export async function constructWebhookEvent(input: VerifyWebhookInput): Promise<WebhookEnvelope> {
  const result = await verifyWebhook(input);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  const envelope = parseWebhookEnvelope(typeof input.rawBody === 'string' ? input.rawBody : new TextDecoder().decode(input.rawBody));
  if (!envelope) throw new WebhookVerificationError('invalid_json');
  return envelope;
}

/** Builds `t=<timestamp>,v1=<hex>...`, one `v1` per secret, as the gateway signs a delivery. */
export async function signWebhook(input: {
  readonly secrets: readonly string[];
  readonly rawBody: string | Uint8Array;
  readonly timestamp: number;
}): Promise<string> {
  assertSigningInput(input);
  const message = signedPayload(input.timestamp, input.rawBody);
  const signatures: string[] = [];
  for (const secret of input.secrets) signatures.push(await hmacSha256Hex(secret, message));
  return signatureHeader(input.timestamp, signatures);
}

function signedPayload(timestamp: number, rawBody: string | Uint8Array): Uint8Array {
  const body = typeof rawBody === 'string' ? utf8Encoder.encode(rawBody) : rawBody;
  return concatBytes([utf8Encoder.encode(signedPrefix(timestamp)), body]);
}

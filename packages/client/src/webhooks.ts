/**
 * Verification (and, for tests and `gateway listen`, signing) of webhook deliveries, spec 5.2:
 * `X-Service-Signature: t=<unix_seconds>,v1=<hex>[,v1=<hex>...]`, each `<hex>` the HMAC-SHA256 of
 * `${t}.${rawBody}` under one of the project's API secrets. The same contract as
 * `@gw/webhook-verify`, on Web Crypto so it runs wherever `fetch` does (and so it is async).
 */
import { WebhookVerificationError } from './errors.js';
import { concatBytes, constantTimeEqual, hmacSha256Hex, utf8Encoder } from './web-crypto.js';

export const SIGNATURE_HEADER = 'x-service-signature';
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The seven webhook event types, in lifecycle order. */
export const WEBHOOK_EVENT_TYPES = [
  'invoice.detected',
  'invoice.paid',
  'invoice.overpaid',
  'invoice.partial',
  'invoice.expired',
  'invoice.expired_paid_late',
  'invoice.reverted',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The JSON body of every delivery. Deduplicate on `event_id`. */
export interface WebhookEnvelope {
  readonly event_id: string;
  readonly event_type: WebhookEventType;
  readonly mode: 'production' | 'testnet' | 'sandbox';
  readonly created_at_iso: string;
  readonly data: {
    readonly invoice_id: string;
    readonly external_id: string;
    readonly status: string;
    readonly previous_status: string;
    readonly invoice: Readonly<Record<string, unknown>>;
  };
  readonly original_event_id?: string;
}

export type WebhookVerifyFailure = 'malformed_header' | 'signature_mismatch' | 'timestamp_out_of_window';
export type WebhookVerifyResult = { readonly ok: true; readonly timestamp: number } | { readonly ok: false; readonly reason: WebhookVerifyFailure };

export interface VerifyWebhookInput {
  /** The `X-Service-Signature` value as received (null/undefined when absent). */
  readonly header: string | null | undefined;
  /** The body exactly as received, before JSON parsing; bytes preferred. */
  readonly rawBody: string | Uint8Array;
  /** The secrets accepted (old and new during a key rotation). At least one; none empty. */
  readonly secrets: readonly string[];
  /** The receiver's clock, unix seconds; default now. */
  readonly nowSeconds?: number;
  /** Allowed distance between `t` and now, either side; default 300. */
  readonly toleranceSeconds?: number;
}

/** Parses the header: exactly one `t`, at least one non-empty `v1`; unknown keys ignored. */
export function parseSignatureHeader(header: string | null | undefined): { timestamp: number; signatures: string[] } | undefined {
  if (typeof header !== 'string') return undefined;
  let timestamp: number | undefined;
  let timestamps = 0;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const part = item.trim();
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    if (key === 't') {
      timestamps += 1;
      if (/^\d{1,15}$/.test(value)) timestamp = Number(value);
    } else if (key === 'v1' && value !== '') {
      signatures.push(value);
    }
  }
  if (timestamps !== 1 || timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

/**
 * Checks, in order: the header's shape, the timestamp window (inclusive), then every
 * (secret, `v1`) pair in constant time without an early exit.
 */
export async function verifyWebhook(input: VerifyWebhookInput): Promise<WebhookVerifyResult> {
  assertSecrets(input.secrets);
  const parsed = parseSignatureHeader(input.header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!(Math.abs(now - parsed.timestamp) <= (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))) return { ok: false, reason: 'timestamp_out_of_window' };
  const message = signedPayload(parsed.timestamp, input.rawBody);
  let matched = false;
  for (const secret of input.secrets) {
    const expected = await hmacSha256Hex(secret, message);
    for (const candidate of parsed.signatures) if (constantTimeEqual(candidate, expected)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'signature_mismatch' };
}

/**
 * Verifies a delivery and returns its parsed envelope; throws {@link WebhookVerificationError}
 * (answer 401, or 400 for `invalid_json`) otherwise.
 */
export async function constructWebhookEvent(input: VerifyWebhookInput): Promise<WebhookEnvelope> {
  const result = await verifyWebhook(input);
  if (!result.ok) throw new WebhookVerificationError(result.reason);
  let envelope: unknown;
  try {
    envelope = JSON.parse(typeof input.rawBody === 'string' ? input.rawBody : new TextDecoder().decode(input.rawBody));
  } catch {
    throw new WebhookVerificationError('invalid_json');
  }
  if (typeof envelope !== 'object' || envelope === null || typeof (envelope as WebhookEnvelope).event_id !== 'string') throw new WebhookVerificationError('invalid_json');
  return envelope as WebhookEnvelope;
}

/** Builds `t=<timestamp>,v1=<hex>...`, one `v1` per secret, as the gateway signs a delivery. */
export async function signWebhook(input: { readonly secrets: readonly string[]; readonly rawBody: string | Uint8Array; readonly timestamp: number }): Promise<string> {
  assertSecrets(input.secrets);
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) throw new TypeError('timestamp must be a non-negative integer number of seconds');
  const parts = [`t=${input.timestamp}`];
  for (const secret of input.secrets) parts.push(`v1=${await hmacSha256Hex(secret, signedPayload(input.timestamp, input.rawBody))}`);
  return parts.join(',');
}

function signedPayload(timestamp: number, rawBody: string | Uint8Array): Uint8Array {
  const body = typeof rawBody === 'string' ? utf8Encoder.encode(rawBody) : rawBody;
  return concatBytes([utf8Encoder.encode(`${timestamp}.`), body]);
}

function assertSecrets(secrets: readonly string[]): void {
  if (!Array.isArray(secrets) || secrets.length === 0) throw new TypeError('at least one webhook secret is required');
  for (const secret of secrets) if (typeof secret !== 'string' || secret === '') throw new TypeError('webhook secrets must be non-empty strings');
}

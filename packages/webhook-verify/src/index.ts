/**
 * Signing and verification of the gateway's webhook deliveries (spec 5.2), for partners and for
 * the gateway's own tests. Uses `node:` built-ins only.
 *
 * Every delivery carries `X-Service-Signature: t=<unix_seconds>,v1=<hex>[,v1=<hex>...]`, where each
 * `<hex>` is the lowercase HMAC-SHA256 of the UTF-8 string `${t}.${rawBody}` keyed with one of the
 * project's API secrets (one `v1` per secret valid at send time, so an API-key rotation never
 * breaks a receiver). See `docs/webhooks.md` for the whole contract.
 *
 * @packageDocumentation
 */
import { createHmac } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  assertSecrets,
  assertSigningInput,
  checkSignatureHeader,
  FAILURE_RESPONSE_ERRORS,
  parseWebhookEnvelope,
  SIGNATURE_HEADER,
  signatureHeader,
  signatureVerdict,
  signedPrefix,
  type WebhookCheckInput,
  type WebhookEnvelope,
  type WebhookVerifyResult,
} from './contract.js';

export {
  DEFAULT_TOLERANCE_SECONDS,
  DELIVERY_ATTEMPT_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  FAILURE_RESPONSE_ERRORS,
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
  type EventEnvelope,
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
  type ParsedSignatureHeader,
  type WebhookCheckInput,
  type WebhookEnvelope,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookVerifyFailure,
  type WebhookVerifyResult,
} from './contract.js';

/** Input of {@link signWebhook}. */
export interface SignWebhookInput {
  /** Secrets to sign with, one `v1` each, in this order. At least one; none may be empty. */
  readonly secrets: readonly string[];
  /** The exact body bytes that will be sent, as a string (encoded as UTF-8). */
  readonly rawBody: string;
  /** Unix time in whole seconds (non-negative safe integer). */
  readonly timestamp: number;
}

/**
 * Builds an `X-Service-Signature` header value: `t=<timestamp>,v1=<hex>` with one `v1` per
 * secret, in the order given.
 *
 * @example
 * ```ts
 * const body = JSON.stringify(envelope);
 * const header = signWebhook({ secrets: [secret], rawBody: body, timestamp: Math.floor(Date.now() / 1000) });
 * // "t=1700000000,v1=5f0c..."
 * ```
 * @throws TypeError when `secrets` is empty or holds an empty string, or `timestamp` is not a
 *   non-negative safe integer.
 */
export function signWebhook(input: SignWebhookInput): string {
  assertSigningInput(input);
  return signatureHeader(
    input.timestamp,
    input.secrets.map((secret) => computeSignature(secret, input.timestamp, input.rawBody)),
  );
}

/** Input of {@link verifyWebhook}. */
export interface VerifyWebhookInput extends WebhookCheckInput {
  /**
   * The request body exactly as received, before any JSON parsing. Prefer the Buffer: a string is
   * hashed as its UTF-8 encoding, which only equals the sent bytes when they were valid UTF-8.
   */
  readonly rawBody: string | Buffer;
}

/**
 * Verifies a delivery's `X-Service-Signature`. Checks, in order:
 *
 * 1. the header parses: exactly one `t=<digits>` and at least one `v1=` (other schemes such as
 *    `v0=` are ignored), else `malformed_header`;
 * 2. `|nowSeconds - t| <= toleranceSeconds` (300 by default, so 300 s away is accepted and 301 s
 *    refused), else `timestamp_out_of_window`;
 * 3. some `v1` equals the HMAC of `${t}.${rawBody}` under some secret, else `signature_mismatch`.
 *    Every (secret, `v1`) pair is compared, in constant time, with no early exit.
 *
 * The receiver should answer 401 on any failure (see {@link FAILURE_RESPONSE_ERRORS}) and must
 * still deduplicate accepted deliveries on `event_id`: a signature only proves origin and
 * freshness, and retries of one event carry the same `event_id`.
 *
 * @throws TypeError when `secrets` is empty or holds an empty string (a configuration error).
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookVerifyResult {
  const checked = checkSignatureHeader(input);
  if (!checked.ok) return checked;
  const { timestamp } = checked.header;
  return signatureVerdict(
    checked.header,
    input.secrets.map((secret) => computeSignature(secret, timestamp, input.rawBody)),
  );
}

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /** The secrets accepted (old and new during an API-key rotation). At least one; none empty. */
  readonly secrets: readonly string[];
  /**
   * Called once per new `event_id` after the signature checked out. Answering 2xx waits for it;
   * when it throws or rejects the receiver answers 500, the event is not marked as seen and the
   * gateway retries it. The gateway waits 10 s per attempt: keep it short (queue heavy work).
   */
  readonly onEvent: (envelope: WebhookEnvelope) => void | Promise<void>;
  /** Default 300 seconds. */
  readonly toleranceSeconds?: number;
  /** Bodies larger than this are answered 413 unread; default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** The receiver's clock in unix seconds; defaults to the system clock (a seam for tests). */
  readonly nowSeconds?: () => number;
}

/**
 * A minimal `node:http` request listener receiving the gateway's webhooks:
 *
 * - reads the raw body (POST only, else 405; over `maxBodyBytes`, 413);
 * - verifies `X-Service-Signature` ({@link verifyWebhook}) and answers 401
 *   `{"error":"malformed_signature_header" | "signature_mismatch" | "timestamp_out_of_window"}`;
 * - parses the JSON (400 `{"error":"invalid_json"}` when it is not an envelope);
 * - deduplicates on `event_id`: a repeated event is answered 200 without calling `onEvent`, one
 *   still being processed is answered 409 (so the gateway retries it later);
 * - calls `onEvent` and answers 200 `{"ok":true}` (500 `{"error":"handler_failed"}` if it throws).
 *
 * The seen-event set lives in memory and is lost on restart, which is enough for an example and
 * for tests. A production receiver persists processed `event_id`s (e.g. a unique column written in
 * the same transaction as the effect of the event) so that retries after a restart are recognised.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * const secrets = process.env.WEBHOOK_SECRETS!.split(',');
 * createServer(createWebhookHandler({ secrets, onEvent: (e) => console.log(e.event_type, e.data.status) })).listen(8080);
 * ```
 * @throws TypeError when `secrets` is empty or holds an empty string.
 */
export function createWebhookHandler(options: WebhookHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  assertSecrets(options.secrets);
  const secrets = [...options.secrets];
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const processed = new Set<string>();
  const inFlight = new Set<string>();

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST') return reply(res, 405, { error: 'method_not_allowed' });
    const rawBody = await readBody(req, maxBodyBytes);
    if (!rawBody) return reply(res, 413, { error: 'payload_too_large' }, true);
    const verified = verifyWebhook({
      header: headerValue(req.headers[SIGNATURE_HEADER]),
      rawBody,
      secrets,
      ...(options.nowSeconds ? { nowSeconds: options.nowSeconds() } : {}),
      ...(options.toleranceSeconds === undefined ? {} : { toleranceSeconds: options.toleranceSeconds }),
    });
    if (!verified.ok) return reply(res, 401, { error: FAILURE_RESPONSE_ERRORS[verified.reason] });
    const envelope = parseWebhookEnvelope(rawBody.toString('utf8'));
    if (!envelope || envelope.event_id === '') return reply(res, 400, { error: 'invalid_json' });
    const id = envelope.event_id;
    if (processed.has(id)) return reply(res, 200, { ok: true });
    if (inFlight.has(id)) return reply(res, 409, { error: 'event_in_progress' });
    inFlight.add(id);
    try {
      await options.onEvent(envelope);
      processed.add(id);
    } catch {
      return reply(res, 500, { error: 'handler_failed' });
    } finally {
      inFlight.delete(id);
    }
    return reply(res, 200, { ok: true });
  };

  return (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, { error: 'internal_error' });
      else res.destroy();
    });
  };
}

function computeSignature(secret: string, timestamp: number, rawBody: string | Buffer): string {
  return createHmac('sha256', secret).update(signedPrefix(timestamp), 'utf8').update(rawBody).digest('hex');
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

/**
 * The whole body, or undefined when it exceeds `limit` bytes. A body declared larger is not read at
 * all (the 413 closes the connection); one that grows too large is drained and discarded, so the
 * 413 still reaches the client.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= limit ? Buffer.concat(chunks) : undefined));
    req.on('error', reject);
  });
}

function reply(res: ServerResponse, status: number, body: unknown, close = false): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(text);
}

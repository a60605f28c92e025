/**
 * The webhook wire contract (spec 5.2) in one place, on no platform API: header names, event
 * types, the envelope, and every step of verification but the HMAC itself. `@gw/webhook-verify`
 * (sync, `node:crypto`) and `@gw/client` (async, Web Crypto, which bundles this file) compute the
 * HMAC their own way and share the rest, so they cannot come to disagree on a header or a verdict.
 *
 * A signature is `X-Service-Signature: t=<unix_seconds>,v1=<hex>[,v1=<hex>...]`, each `<hex>` the
 * lowercase HMAC-SHA256 of the UTF-8 string `${t}.${rawBody}` keyed with one of the project's API
 * secrets.
 */

/** The request header carrying the signature (node:http lower-cases header names). */
export const SIGNATURE_HEADER = 'x-service-signature';
/** The request header carrying the event id, equal to the envelope's `event_id`. */
export const EVENT_ID_HEADER = 'x-service-event-id';
/** The request header carrying the event type, equal to the envelope's `event_type`. */
export const EVENT_TYPE_HEADER = 'x-service-event-type';
/** The request header carrying the 1-based delivery attempt number. */
export const DELIVERY_ATTEMPT_HEADER = 'x-service-delivery-attempt';
/** The `User-Agent` the gateway sends webhooks with. */
export const WEBHOOK_USER_AGENT = 'crypto-gateway-webhooks/1';
/** Default allowed distance, in seconds, between the signature's `t` and the receiver's clock. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** The seven webhook event types (spec 5.2), in lifecycle order. */
export const WEBHOOK_EVENT_TYPES = [
  'invoice.detected',
  'invoice.paid',
  'invoice.overpaid',
  'invoice.partial',
  'invoice.expired',
  'invoice.expired_paid_late',
  'invoice.reverted',
] as const;
/**
 * The events of refunds (issue 37), additions beside the spec's seven that change none of them.
 * Their `data` is {@link MoneyOutEventData} with `refund`.
 */
export const REFUND_EVENT_TYPES = [
  'refund.created',
  'refund.claimed',
  'refund.approved',
  'refund.sent',
  'refund.completed',
  'refund.failed',
  'refund.cancelled',
] as const;
/** The events of payouts (issue 37). A payout has no claim: its address comes with it. */
export const PAYOUT_EVENT_TYPES = ['payout.created', 'payout.approved', 'payout.sent', 'payout.completed', 'payout.failed', 'payout.cancelled'] as const;
export type RefundEventType = (typeof REFUND_EVENT_TYPES)[number];
export type PayoutEventType = (typeof PAYOUT_EVENT_TYPES)[number];

/** A refund or payout event type. */
export type MoneyOutEventType = RefundEventType | PayoutEventType;

/**
 * The events of checkout sessions (issue 38), additions beside the invoice events of the session's
 * invoices (which keep coming as they always do). Their `data` is {@link SessionEventData}.
 */
export const SESSION_EVENT_TYPES = ['checkout_session.completed', 'checkout_session.expired'] as const;
export type SessionEventType = (typeof SESSION_EVENT_TYPES)[number];

/**
 * Every event type the gateway delivers: the spec's seven invoice events first, then the refund and
 * payout additions (issue 37), then the checkout session additions (issue 38). A receiver that knows
 * only the seven ignores the others.
 */
export const GATEWAY_EVENT_TYPES = [...WEBHOOK_EVENT_TYPES, ...REFUND_EVENT_TYPES, ...PAYOUT_EVENT_TYPES, ...SESSION_EVENT_TYPES] as const;
/** One of {@link GATEWAY_EVENT_TYPES}. */
export type GatewayEventType = (typeof GATEWAY_EVENT_TYPES)[number];

/** Whether `type` is a refund or payout event type. */
export function isMoneyOutEventType(type: string): type is MoneyOutEventType {
  return (REFUND_EVENT_TYPES as readonly string[]).includes(type) || (PAYOUT_EVENT_TYPES as readonly string[]).includes(type);
}

/** Whether `type` is a checkout session event type. */
export function isSessionEventType(type: string): type is SessionEventType {
  return (SESSION_EVENT_TYPES as readonly string[]).includes(type);
}

/** The `data` of a `checkout_session.*` event. */
export interface SessionEventData {
  readonly checkout_session_id: string;
  /** The invoice that paid the session (`completed`); null for `expired`. */
  readonly invoice_id: string | null;
  /** The session's status this event moved it to (`completed`, `expired`). */
  readonly status: string;
  readonly previous_status: string;
  /** The full session as `GET /api/v1/checkout-sessions/{id}` returned it when the event was created. */
  readonly checkout_session: Readonly<Record<string, unknown>>;
}

/** The `data` of a refund or payout event. */
export interface MoneyOutEventData {
  /** Set on refund events: the invoice refunded. */
  readonly invoice_id?: string;
  readonly refund_id?: string;
  readonly payout_id?: string;
  /** The item's status this event moved it to. */
  readonly status: string;
  readonly previous_status: string | null;
  /** The full resource as `GET /api/v1/refunds/{id}` (or `/payouts/{id}`) returned it when the event was created. */
  readonly refund?: Readonly<Record<string, unknown>>;
  readonly payout?: Readonly<Record<string, unknown>>;
}

/** The `data` of a `refund.*` event: always the invoice, the refund's id and the refund. */
export type RefundEventData = MoneyOutEventData & {
  readonly invoice_id: string;
  readonly refund_id: string;
  readonly refund: Readonly<Record<string, unknown>>;
};

/** The `data` of a `payout.*` event: the payout's id and the payout (no invoice). */
export type PayoutEventData = MoneyOutEventData & {
  readonly payout_id: string;
  readonly payout: Readonly<Record<string, unknown>>;
};

/** One of {@link WEBHOOK_EVENT_TYPES}: an invoice event of the spec. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The `data` of an invoice event (one of the spec's seven). */
export interface WebhookEventData {
  readonly invoice_id: string;
  readonly external_id: string;
  /** The invoice status this event moved the invoice to. */
  readonly status: string;
  /** The invoice status before the transition. */
  readonly previous_status: string;
  /** The full invoice resource as `GET /api/v1/invoices/{id}` returned it when the event was created. */
  readonly invoice: Readonly<Record<string, unknown>>;
  /**
   * On an event a payment's first sight causes (`invoice.detected`, and `invoice.partial` or
   * `invoice.expired_paid_late` at that sight) on a network watched through several independent
   * providers (quorum above 1): how many providers the sight rests on (`detected_by`, 1: the one
   * that scanned) and how many must report the payment in the same block before it counts toward
   * paid (`required_for_paid`). Absent where the network's quorum is 1.
   */
  readonly sources?: { readonly detected_by: number; readonly required_for_paid: number };
}

/** The JSON body of a webhook delivery whose type is one of `Type` and whose data is `Data`. */
export interface EventEnvelope<Type extends GatewayEventType, Data> {
  /** ULID of the event; stable across retries of one event, fresh for a resend. Deduplicate on it. */
  readonly event_id: string;
  readonly event_type: Type;
  /** The project's kind. */
  readonly mode: 'production' | 'testnet' | 'sandbox';
  /** When the event was created (not when this attempt was sent), ISO 8601 UTC. */
  readonly created_at_iso: string;
  readonly data: Data;
  /** Only on resends: the `event_id` of the event this one re-sends. */
  readonly original_event_id?: string;
}

/** An invoice event (the spec's seven). */
export type InvoiceWebhookEnvelope = EventEnvelope<WebhookEventType, WebhookEventData>;
/** A `refund.*` event. */
export type RefundWebhookEnvelope = EventEnvelope<RefundEventType, RefundEventData>;
/** A `payout.*` event. */
export type PayoutWebhookEnvelope = EventEnvelope<PayoutEventType, PayoutEventData>;
/** A `checkout_session.*` event. */
export type SessionWebhookEnvelope = EventEnvelope<SessionEventType, SessionEventData>;

/**
 * The JSON body of every webhook delivery. Without a type argument it is what a receiver reads: an
 * invoice, refund, payout or checkout session event, told apart by `event_type`. `WebhookEnvelope<Data>` is for the
 * gateway's own outbox, which passes on what the event's producer gave.
 */
export type WebhookEnvelope<Data = never> = [Data] extends [never]
  ? InvoiceWebhookEnvelope | RefundWebhookEnvelope | PayoutWebhookEnvelope | SessionWebhookEnvelope
  : EventEnvelope<GatewayEventType, Data>;

/**
 * A delivery's body read as an envelope: undefined when it is not JSON, or not an object with a
 * string `event_id` (the receiver's `invalid_json`). Fields beyond `event_id` are not checked.
 */
export function parseWebhookEnvelope(text: string): WebhookEnvelope | undefined {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof envelope !== 'object' || envelope === null || typeof (envelope as WebhookEnvelope).event_id !== 'string') return undefined;
  return envelope as WebhookEnvelope;
}

/** Why a delivery was refused; each maps to a distinct 401 body. */
export type WebhookVerifyFailure = 'malformed_header' | 'signature_mismatch' | 'timestamp_out_of_window';

/** Outcome of a verification. */
export type WebhookVerifyResult = { readonly ok: true; readonly timestamp: number } | { readonly ok: false; readonly reason: WebhookVerifyFailure };

/** The `error` value a receiver answers with (401 body `{"error": ...}`) for each failure. */
export const FAILURE_RESPONSE_ERRORS: Readonly<Record<WebhookVerifyFailure, string>> = {
  malformed_header: 'malformed_signature_header',
  signature_mismatch: 'signature_mismatch',
  timestamp_out_of_window: 'timestamp_out_of_window',
};

/** A parsed `X-Service-Signature` header. */
export interface ParsedSignatureHeader {
  /** The `t` value, unix seconds. */
  readonly timestamp: number;
  /** Every `v1` value, in header order (not validated: a wrong one simply does not match). */
  readonly signatures: readonly string[];
}

/**
 * Parses an `X-Service-Signature` value into its timestamp and `v1` signatures. Items are
 * comma-separated `key=value` pairs (whitespace around items is ignored); unknown keys are ignored.
 *
 * @returns undefined when the header is absent or malformed: no `t`, more than one `t`, a `t` that
 *   is not a non-negative integer, or no non-empty `v1`.
 */
export function parseSignatureHeader(header: string | null | undefined): ParsedSignatureHeader | undefined {
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

/** What verification reads besides the body. */
export interface WebhookCheckInput {
  /** The `X-Service-Signature` value as received (null/undefined when absent). */
  readonly header: string | null | undefined;
  /** The secrets this receiver accepts (during a rotation: old and new). At least one; none empty. */
  readonly secrets: readonly string[];
  /** The receiver's clock, unix seconds; defaults to now. */
  readonly nowSeconds?: number;
  /** Allowed distance between `t` and `nowSeconds`, either side; default 300. */
  readonly toleranceSeconds?: number;
}

/**
 * Verification's first two steps: the header parses (else `malformed_header`), then
 * `|now - t| <= tolerance`, inclusive (else `timestamp_out_of_window`). On success the caller
 * computes one HMAC per secret and asks {@link signatureVerdict}.
 *
 * @throws TypeError when `secrets` is empty or holds an empty string (a configuration error).
 */
export function checkSignatureHeader(
  input: WebhookCheckInput,
): { readonly ok: true; readonly header: ParsedSignatureHeader } | { readonly ok: false; readonly reason: WebhookVerifyFailure } {
  assertSecrets(input.secrets);
  const header = parseSignatureHeader(input.header);
  if (!header) return { ok: false, reason: 'malformed_header' };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const tolerance = input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(Math.abs(now - header.timestamp) <= tolerance)) return { ok: false, reason: 'timestamp_out_of_window' };
  return { ok: true, header };
}

/**
 * The last step: accepted when some `v1` equals some expected signature (one per secret). Every
 * pair is compared, in time that depends on the lengths only, with no early exit.
 */
export function signatureVerdict(header: ParsedSignatureHeader, expected: readonly string[]): WebhookVerifyResult {
  let matched = false;
  for (const signature of expected) {
    for (const candidate of header.signatures) if (constantTimeEqual(candidate, signature)) matched = true;
  }
  return matched ? { ok: true, timestamp: header.timestamp } : { ok: false, reason: 'signature_mismatch' };
}

/** The text a signature's HMAC covers before the raw body: `${t}.`. */
export function signedPrefix(timestamp: number): string {
  return `${timestamp}.`;
}

/** The header from one HMAC per secret, in order: `t=<timestamp>,v1=<hex>...`. */
export function signatureHeader(timestamp: number, signatures: readonly string[]): string {
  return [`t=${timestamp}`, ...signatures.map((signature) => `v1=${signature}`)].join(',');
}

/**
 * Refuses what no signature can be made with (a configuration error).
 *
 * @throws TypeError when `secrets` is empty or holds an empty string, or `timestamp` is not a
 *   non-negative safe integer.
 */
export function assertSigningInput(input: { readonly secrets: readonly string[]; readonly timestamp: number }): void {
  assertSecrets(input.secrets);
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) throw new TypeError('timestamp must be a non-negative integer number of seconds');
}

/** @throws TypeError when `secrets` is empty or holds an empty string. */
export function assertSecrets(secrets: readonly string[]): void {
  if (!Array.isArray(secrets) || secrets.length === 0) throw new TypeError('at least one webhook secret is required');
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret === '') throw new TypeError('webhook secrets must be non-empty strings');
  }
}

function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i += 1) difference |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return difference === 0;
}

import { OUTBOUND_EVENT_TYPES, ISO_8601_PATTERN, PAGE_QUERY, pageSchema, PROJECT_KINDS, ULID_PATTERN } from '@gw/kernel';
import Type from 'typebox';
import { DELIVERY_STATUSES } from './delivery-status.js';

/** Query of the event stream (gateway listen). */
export const StreamQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({ pattern: ULID_PATTERN, description: 'Continue after this event (the last one handled; next_cursor of the previous answer).' }),
    ),
    start: Type.Optional(
      Type.Union([Type.Literal('earliest'), Type.Literal('latest')], {
        description: "Without after: 'earliest' (default) from the project's first event; 'latest' answers no events and the cursor of the newest one.",
      }),
    ),
    wait: Type.Integer({ minimum: 0, maximum: 25, default: 0, description: 'Seconds to wait for an event when none is ready (long poll).' }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  },
  { additionalProperties: false },
);

export const StreamEventSchema = Type.Object(
  {
    event_id: Type.String({ pattern: ULID_PATTERN }),
    event_type: Type.Enum(OUTBOUND_EVENT_TYPES),
    invoice_id: Type.Union([Type.String(), Type.Null()]),
    original_event_id: Type.Union([Type.String(), Type.Null()]),
    created_at_iso: Type.String(),
    body: Type.String({ description: 'The exact body every delivery of the event sends; sign and forward it unchanged.' }),
  },
  { additionalProperties: false },
);

export const StreamPageSchema = Type.Object(
  {
    items: Type.Array(StreamEventSchema),
    next_cursor: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'Pass back as after; absent only when the project has no event yet.' })),
  },
  { additionalProperties: false },
);

export const EventTypeSchema = Type.Enum(OUTBOUND_EVENT_TYPES, {
  description: 'One of the seven invoice event types (spec section 6), or a refund, payout or checkout session event type (additions beside them).',
});
/**
 * The type of a logged event (answers): an outbound event type, or a protocol delivery's own type
 * (another plugin's wire format, e.g. BTCPay's `InvoiceSettled`; `signer` says which).
 */
export const LoggedEventTypeSchema = Type.Union(
  [
    EventTypeSchema,
    Type.String({
      pattern: '^[A-Z][A-Za-z0-9]{0,63}$',
      description: "A protocol delivery's own event type (`signer` set), e.g. BTCPay's InvoiceSettled.",
    }),
  ],
  { description: "An outbound event type, or a protocol delivery's own type (`signer` set)." },
);
const SignerSchema = Type.Union([Type.String(), Type.Null()], {
  description:
    "The protocol of a protocol delivery, signed with its subscription's own secret (btcpay: BTCPay's body and BTCPay-Sig header); null for the gateway's own events (X-Service-Signature).",
});
export const DeliveryStatusSchema = Type.Enum(DELIVERY_STATUSES, {
  description: 'retrying (queued or awaiting a retry), delivered, dlq (every attempt failed), skipped (no target).',
});
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableIso = Type.Union([Type.String({ description: 'ISO 8601' }), Type.Null()]);

/** `GET /webhooks/events` query (spec 4.4). */
export const ListEventsQuery = Type.Object(
  {
    status: Type.Optional(DeliveryStatusSchema),
    event_type: Type.Optional(EventTypeSchema),
    since: Type.Optional(Type.String({ pattern: ISO_8601_PATTERN, description: 'Events created at or after this instant (a date means 00:00 UTC).' })),
    invoice_id: Type.Optional(
      Type.String({
        pattern: ULID_PATTERN,
        description: "Only the events of this invoice (its refunds' events and the completion of its checkout session included).",
      }),
    ),
    ...PAGE_QUERY,
  },
  { additionalProperties: false },
);

/** Any string: a path id that is not a ULID is 404 `event_not_found` (spec 4.4), not 400. */
export const EventIdParams = Type.Object({ event_id: Type.String({ minLength: 1, description: 'Event id (ULID).' }) }, { additionalProperties: false });

export const DeliveryAttemptSchema = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    started_at_iso: Type.String(),
    target_url: Type.String(),
    http_status: Type.Union([Type.Integer(), Type.Null()]),
    latency_ms: Type.Integer({ minimum: 0 }),
    error: NullableString,
    response_excerpt: Type.Union([Type.String({ description: 'The first bytes of the response body.' }), Type.Null()]),
  },
  { additionalProperties: false },
);

/** A delivery-log entry (spec 2.4: `id` and `status`; the rest is ours, docs/decisions.md). */
export const DeliveryLogEntrySchema = Type.Object(
  {
    id: Type.String({ pattern: ULID_PATTERN, description: 'The event_id.' }),
    event_type: LoggedEventTypeSchema,
    signer: SignerSchema,
    mode: Type.Enum(PROJECT_KINDS),
    project_id: Type.String({ pattern: ULID_PATTERN }),
    invoice_id: Type.Union([Type.String({ pattern: ULID_PATTERN }), Type.Null()], {
      description:
        'The invoice the event is about (a refund event: the refunded invoice; a checkout_session.completed: the paying invoice); null for a payout event and a checkout_session.expired.',
    }),
    original_event_id: Type.Union([Type.String({ pattern: ULID_PATTERN }), Type.Null()]),
    status: DeliveryStatusSchema,
    target_url: NullableString,
    attempts: Type.Integer({ minimum: 0 }),
    next_attempt_at_iso: NullableIso,
    last_attempt_at_iso: NullableIso,
    last_http_status: Type.Union([Type.Integer(), Type.Null()]),
    last_error: NullableString,
    delivered_at_iso: NullableIso,
    created_at: Type.Integer({ minimum: 0 }),
    created_at_iso: Type.String(),
    payload: Type.Object(
      {},
      { additionalProperties: true, description: "The envelope exactly as delivered (spec 2.5); a protocol delivery's body in its protocol's format." },
    ),
    attempt_log: Type.Array(DeliveryAttemptSchema),
  },
  { additionalProperties: false },
);

export const DeliveryLogPageSchema = pageSchema(DeliveryLogEntrySchema);

/** Resend result (spec 2.4). */
export const ResendResultSchema = Type.Object(
  {
    event_id: Type.String({ pattern: ULID_PATTERN, description: 'The fresh id.' }),
    original_event_id: Type.String({ pattern: ULID_PATTERN }),
    event_type: LoggedEventTypeSchema,
    project_id: Type.String({ pattern: ULID_PATTERN }),
    invoice_id: Type.Union([Type.String(), Type.Null()]),
    target_url: NullableString,
    created_at: Type.Integer({ minimum: 0 }),
    created_at_iso: Type.String(),
  },
  { additionalProperties: false },
);

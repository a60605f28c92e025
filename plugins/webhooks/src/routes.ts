import { defineRoute, restActor, type RouteAccess, type RouteDefinition, withDeps } from '@gw/kernel';
import { DeliveryLogEntrySchema, DeliveryLogPageSchema, EventIdParams, ListEventsQuery, ResendResultSchema, StreamPageSchema, StreamQuery } from './schemas.js';
import type { EventLog } from './services/event-log.js';
import type { EventStream } from './services/event-stream.js';

/** The webhook API's operations, as a mount documents them. */
export type WebhookOperation = 'stream' | 'list' | 'get' | 'resend';

/**
 * One mount of the webhook API (spec 4.4): the production API, or a mirror of it (the sandbox's,
 * spec 4.5) with its own path, access, documentation and the service its resends go through.
 */
export interface WebhookApiMount {
  /** Path of the webhook API, e.g. `/api/v1/webhooks`. */
  readonly path: string;
  readonly tags: readonly string[];
  readonly access: RouteAccess;
  readonly stream: () => Pick<EventStream, 'read'>;
  readonly log: () => Pick<EventLog, 'list' | 'get'>;
  /** The service of resends: the mount's own refusals come first there. */
  readonly resends: () => Pick<EventLog, 'resend'>;
  /** Each operation's summary and description in the OpenAPI document (the stream's description is the same everywhere). */
  readonly docs: Readonly<Record<WebhookOperation, { readonly summary: string; readonly description?: string }>>;
  /** The error codes of a resend, which differ per mount. */
  readonly resendErrors: readonly string[];
}

const STREAM_DESCRIPTION =
  'Events in commit order, each with the exact body its deliveries send, for forwarding (gateway listen). The cursor is an event id: a read after it never misses an event committed later, across restarts and instances. With nothing ready the answer waits up to `wait` seconds.';

/** The webhook API's four routes at a mount. */
export function webhookApiRoutes(mount: WebhookApiMount): RouteDefinition[] {
  const { path, tags, access, docs } = mount;
  const common = { tags, auth: 'signed', access } as const;
  return [
    defineRoute({
      method: 'GET',
      path: `${path}/stream`,
      ...docs.stream,
      description: STREAM_DESCRIPTION,
      ...common,
      query: StreamQuery,
      // A copy of a signed read (a capture sent again) gets the first page, not newer events.
      repeatAnswersFirst: true,
      responses: { 200: StreamPageSchema },
      errors: ['validation_error', 'event_not_found'],
      handler: async ({ auth, query }) => ({ body: await mount.stream().read(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${path}/events`,
      ...docs.list,
      ...common,
      query: ListEventsQuery,
      responses: { 200: DeliveryLogPageSchema },
      errors: ['validation_error'],
      handler: async ({ auth, query }) => ({ body: await mount.log().list(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${path}/events/:event_id`,
      ...docs.get,
      ...common,
      params: EventIdParams,
      responses: { 200: DeliveryLogEntrySchema },
      errors: ['event_not_found'],
      handler: async ({ auth, params }) => ({ body: await mount.log().get(auth.project!.id, params.event_id) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${path}/events/:event_id/resend`,
      ...docs.resend,
      ...common,
      params: EventIdParams,
      responses: { 202: ResendResultSchema },
      errors: mount.resendErrors,
      handler: async ({ auth, params, requestId }) => ({
        status: 202,
        body: await mount.resends().resend(auth.project!.id, params.event_id, restActor(auth, requestId)),
      }),
    }),
  ];
}

/** The delivery log of spec 4.4, for production and testnet projects. */
export const webhooksRoutes = withDeps(['webhooksEventLog', 'webhooksEventStream'], (deps): RouteDefinition[] =>
  webhookApiRoutes({
    path: '/api/v1/webhooks',
    tags: ['webhooks'],
    access: { projectKind: 'production' },
    stream: () => deps.webhooksEventStream,
    log: () => deps.webhooksEventLog,
    resends: () => deps.webhooksEventLog,
    docs: {
      stream: { summary: "Follow the project's webhook events (resumable, long poll)." },
      list: {
        summary: "List the project's outbound webhook events with their delivery attempts (newest first).",
        description: 'Filters combine with AND. Pages are keyed by event id, so events written while paging never shift or repeat entries.',
      },
      get: { summary: 'Retrieve one webhook event with its delivery attempts.' },
      resend: {
        summary: 'Resend an event as a new event (fresh event_id, original_event_id set), to the target resolved now.',
        description:
          "The target is the invoice's callback_url, else the project's default webhook URL, as they are at resend time. Delivery is asynchronous; " +
          'the original event is never changed. Allowed for every status (a skipped event resent after a webhook URL was set is delivered).',
      },
    },
    resendErrors: ['event_not_found', 'rate_limit_exceeded'],
  }),
);

import { defineRoute, restActor, type RouteDefinition, withDeps } from '@gw/kernel';
import { DeliveryLogEntrySchema, DeliveryLogPageSchema, EventIdParams, ListEventsQuery, ResendResultSchema, StreamPageSchema, StreamQuery } from './schemas.js';

/** The stream route's description, shared with the sandbox mirror. */
export const STREAM_DESCRIPTION =
  'Events in commit order, each with the exact body its deliveries send, for forwarding (gateway listen). The cursor is an event id: a read after it never misses an event committed later, across restarts and instances. With nothing ready the answer waits up to `wait` seconds.';

/** The delivery log of spec 4.4, for production and testnet projects. */
export const webhooksRoutes = withDeps(['webhooksEventLog', 'webhooksEventStream'], (deps): RouteDefinition[] => {
  const log = () => deps.webhooksEventLog;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks/stream',
      summary: "Follow the project's webhook events (resumable, long poll).",
      description: STREAM_DESCRIPTION,
      tags: ['webhooks'],
      auth: 'signed',
      access: { projectKind: 'production' },
      query: StreamQuery,
      // A copy of a signed read (a capture sent again) gets the first page, not newer events.
      repeatAnswersFirst: true,
      responses: { 200: StreamPageSchema },
      errors: ['validation_error', 'event_not_found'],
      handler: async ({ auth, query }) => ({ body: await deps.webhooksEventStream.read(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks/events',
      summary: "List the project's outbound webhook events with their delivery attempts (newest first).",
      description: 'Filters combine with AND. Pages are keyed by event id, so events written while paging never shift or repeat entries.',
      tags: ['webhooks'],
      auth: 'signed',
      access: { projectKind: 'production' },
      query: ListEventsQuery,
      responses: { 200: DeliveryLogPageSchema },
      errors: ['validation_error'],
      handler: async ({ auth, query }) => ({ body: await log().list(auth.project!.id, query) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/webhooks/events/:event_id',
      summary: 'Retrieve one webhook event with its delivery attempts.',
      tags: ['webhooks'],
      auth: 'signed',
      access: { projectKind: 'production' },
      params: EventIdParams,
      responses: { 200: DeliveryLogEntrySchema },
      errors: ['event_not_found'],
      handler: async ({ auth, params }) => ({ body: await log().get(auth.project!.id, params.event_id) }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/webhooks/events/:event_id/resend',
      summary: 'Resend an event as a new event (fresh event_id, original_event_id set), to the target resolved now.',
      description:
        "The target is the invoice's callback_url, else the project's default webhook URL, as they are at resend time. Delivery is asynchronous; " +
        'the original event is never changed. Allowed for every status (a skipped event resent after a webhook URL was set is delivered).',
      tags: ['webhooks'],
      auth: 'signed',
      access: { projectKind: 'production' },
      params: EventIdParams,
      responses: { 202: ResendResultSchema },
      errors: ['event_not_found', 'rate_limit_exceeded'],
      handler: async ({ auth, params, requestId }) => ({
        status: 202,
        body: await log().resend(auth.project!.id, params.event_id, restActor(auth, requestId)),
      }),
    }),
  ];
});

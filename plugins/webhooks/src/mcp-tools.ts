import { defineMcpTool, mcpArguments, type McpToolDefinition, type McpToolInput, withDeps } from '@gw/kernel';
import Type from 'typebox';
import { ListEventsQuery } from './schemas.js';

/** Arguments of `retry_webhook`. */
const RetryWebhookToolArguments = mcpArguments({
  event_id: Type.String({ minLength: 1, maxLength: 64, description: 'Id of the event to send again (ULID).' }),
});

const RETRY_WEBHOOK_DESCRIPTION =
  'Send a webhook event again (spec 4.4 resend): a new event with a fresh event_id and original_event_id set, to the target resolved now; ' +
  'the original log entry is never changed. Returns { event_id, original_event_id, status, target_url, ... }. event_not_found when the ' +
  'event is not one of this project.';

/** The webhook tools of spec 4.6: the delivery log, and resend for production and testnet projects. */
export const webhooksMcpTools = withDeps(['webhooksEventLog'], (deps): McpToolDefinition[] => {
  const log = () => deps.webhooksEventLog;
  return [
    defineMcpTool({
      name: 'get_webhook_events',
      title: 'List webhook deliveries',
      description:
        "The project's webhook delivery log, newest first, each event with its status (delivered, retrying, dlq, skipped), attempts and " +
        'the delivered envelope. Optional filters: status, event_type, since (ISO 8601), invoice_id; cursor and limit (1 to 200, default 50) ' +
        'page through it. Returns { items, next_cursor }.',
      input: mcpArguments(ListEventsQuery.properties),
      scope: 'webhooks:read',
      writes: false,
      errors: ['validation_error'],
      handler: async ({ args, project }) => {
        const { project_id: _, ...filter } = args;
        return log().list(project.id, filter);
      },
    }),
    retryWebhookTool('production', (projectId, eventId, actor) => log().resend(projectId, eventId, actor), ['event_not_found', 'subscription_expired']),
  ];
});

/** `retry_webhook` for projects of `projectKind`; the sandbox plugin declares its variant with it. */
export function retryWebhookTool(
  projectKind: 'production' | 'sandbox',
  resend: (projectId: string, eventId: string, actor: McpToolInput<unknown>['actor']) => Promise<unknown>,
  errors: readonly string[],
): McpToolDefinition {
  return defineMcpTool({
    name: 'retry_webhook',
    title: 'Resend a webhook event',
    description: RETRY_WEBHOOK_DESCRIPTION,
    input: RetryWebhookToolArguments,
    scope: 'webhooks:manage',
    access: { projectKind, write: true },
    writes: true,
    errors,
    handler: async ({ args, project, actor }) => resend(project.id, args.event_id, actor),
  });
}

import { CLI_ACTOR, type CliCommand, defineCommand, OUTBOUND_EVENT_TYPES, type OutboundEventType, PAGE_FLAGS, pageFlags, ulidFlag } from '@gw/kernel';
import { DELIVERY_STATUSES, type DeliveryStatus } from './delivery-status.js';
import { nominalSchedule } from './services/retry-schedule.js';

/** Operator CLI: the delivery log, one event, resends and the retry schedule. */
export const webhooksCommands: CliCommand[] = [
  defineCommand(['tenancyProjects', 'webhooksEventLog'], {
    noun: 'webhook',
    verb: 'list',
    summary: "A project's webhook events with their attempts, newest first (the REST delivery log, for operators).",
    flags: {
      project: ulidFlag('Project'),
      status: { type: 'string', choices: DELIVERY_STATUSES, description: 'Only this delivery status.' },
      'event-type': { type: 'string', choices: OUTBOUND_EVENT_TYPES, description: 'Only this event type.' },
      invoice: ulidFlag('Invoice', {
        required: false,
        description: "Only the events of this invoice (ULID), its refunds' and its checkout session's completion included.",
      }),
      ...PAGE_FLAGS,
    },
    run: async ({ flags, deps }) => {
      await deps.tenancyProjects.get(String(flags['project']));
      return deps.webhooksEventLog.list(String(flags['project']), {
        status: flags['status'] as DeliveryStatus | undefined,
        event_type: flags['event-type'] as OutboundEventType | undefined,
        invoice_id: flags['invoice'] as string | undefined,
        ...pageFlags(flags),
      });
    },
  }),
  defineCommand(['webhooksEventLog'], {
    noun: 'webhook',
    verb: 'show',
    summary: 'One webhook event: envelope, status, target and every attempt.',
    flags: { project: ulidFlag('Project'), event: ulidFlag('Event') },
    run: async ({ flags, deps }) => ({ event: await deps.webhooksEventLog.get(String(flags['project']), String(flags['event'])) }),
  }),
  defineCommand(['webhooksEventLog'], {
    noun: 'webhook',
    verb: 'resend',
    summary: 'Resend an event as a new event to the target resolved now (the original stays as it is). Audited as the operator.',
    flags: { project: ulidFlag('Project'), event: ulidFlag('Event') },
    run: async ({ flags, deps }) => ({ resend: await deps.webhooksEventLog.resend(String(flags['project']), String(flags['event']), CLI_ACTOR) }),
  }),
  defineCommand(['webhooksTestEvents'], {
    noun: 'webhook',
    verb: 'test',
    summary: "Send a signed webhook.test event to the project's default webhook URL now and show the answer (not queued, not retried; audited).",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => ({ test: await deps.webhooksTestEvents.send(String(flags['project']), CLI_ACTOR) }),
  }),
  defineCommand(['webhooksConfig'], {
    noun: 'webhook',
    verb: 'schedule',
    summary: 'The retry schedule of this deployment: delay before each retry, before jitter.',
    flags: {},
    run: async ({ deps }) => {
      const delays = nominalSchedule(deps.webhooksConfig);
      return {
        attempts: deps.webhooksConfig.maxAttempts,
        timeout_ms: deps.webhooksConfig.timeoutMs,
        jitter: deps.webhooksConfig.retryJitter,
        delays_seconds: delays,
        total_seconds: delays.reduce((a, b) => a + b, 0),
      };
    },
  }),
];

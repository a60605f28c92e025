import { INVOICE_EVENT_TYPES, PAGE_LIMIT_FLAG, ulidFlag, type CliCommand, type InvoiceEventType } from '@gw/kernel';
import { CLI_ACTOR } from '@gw/plugin-tenancy';
import { DELIVERY_STATUSES, type DeliveryStatus } from './delivery-status.js';
import { nominalSchedule } from './services/retry-schedule.js';

/** Operator CLI: the delivery log, one event, resends and the retry schedule. */
export const webhooksCommands: CliCommand[] = [
  {
    noun: 'webhook',
    verb: 'list',
    summary: "A project's webhook events with their attempts, newest first (the REST delivery log, for operators).",
    flags: {
      project: ulidFlag('Project'),
      status: { type: 'string', choices: DELIVERY_STATUSES, description: 'Only this delivery status.' },
      'event-type': { type: 'string', choices: INVOICE_EVENT_TYPES, description: 'Only this event type.' },
      invoice: ulidFlag('Invoice', { required: false, description: 'Only the events of this invoice (ULID).' }),
      limit: PAGE_LIMIT_FLAG,
      cursor: ulidFlag('Cursor', { required: false, description: 'next_cursor of the previous page (ULID).' }),
    },
    run: async ({ flags, cradle }) => {
      await cradle.tenancyProjects.get(String(flags['project']));
      return cradle.webhooksEventLog.list(String(flags['project']), {
        limit: flags['limit'] ? Number(flags['limit']) : 50,
        status: flags['status'] as DeliveryStatus | undefined,
        event_type: flags['event-type'] as InvoiceEventType | undefined,
        invoice_id: flags['invoice'] as string | undefined,
        cursor: flags['cursor'] as string | undefined,
      });
    },
  },
  {
    noun: 'webhook',
    verb: 'show',
    summary: 'One webhook event: envelope, status, target and every attempt.',
    flags: { project: ulidFlag('Project'), event: ulidFlag('Event') },
    run: async ({ flags, cradle }) => ({ event: await cradle.webhooksEventLog.get(String(flags['project']), String(flags['event'])) }),
  },
  {
    noun: 'webhook',
    verb: 'resend',
    summary: 'Resend an event as a new event to the target resolved now (the original stays as it is). Audited as the operator.',
    flags: { project: ulidFlag('Project'), event: ulidFlag('Event') },
    run: async ({ flags, cradle }) => ({ resend: await cradle.webhooksEventLog.resend(String(flags['project']), String(flags['event']), CLI_ACTOR) }),
  },
  {
    noun: 'webhook',
    verb: 'test',
    summary: "Send a signed webhook.test event to the project's default webhook URL now and show the answer (not queued, not retried; audited).",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, cradle }) => ({ test: await cradle.webhooksTestEvents.send(String(flags['project']), CLI_ACTOR) }),
  },
  {
    noun: 'webhook',
    verb: 'schedule',
    summary: 'The retry schedule of this deployment: delay before each retry, before jitter.',
    flags: {},
    run: async ({ cradle }) => {
      const delays = nominalSchedule(cradle.webhooksConfig);
      return {
        attempts: cradle.webhooksConfig.maxAttempts,
        timeout_ms: cradle.webhooksConfig.timeoutMs,
        jitter: cradle.webhooksConfig.retryJitter,
        delays_seconds: delays,
        total_seconds: delays.reduce((a, b) => a + b, 0),
      };
    },
  },
];

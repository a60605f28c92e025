/**
 * The contract of the webhooks plugin (the event log, the outbox and webhook delivery): the services it registers and
 * what other plugins may import from it (`@gw/plugin-webhooks/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { WebhooksConfig } from './config.js';
import type { WebhookMetrics } from './metrics.js';
import type { DeliveryWorker } from './services/delivery-worker.js';
import type { EventLog } from './services/event-log.js';
import type { EventStream } from './services/event-stream.js';
import type { ProtocolDeliveries } from './services/protocol-deliveries.js';
import type { WebhookOutbox } from './services/outbox.js';
import type { WebhookSender } from './services/webhook-sender.js';
import type { WebhookTestEvents } from './services/test-event.js';

import type { DeliveryHealthReads } from './services/delivery-health.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly webhooksConfig: WebhooksConfig;
    readonly webhooksMetrics: WebhookMetrics;
    readonly webhooksOutbox: WebhookOutbox;
    readonly webhooksSender: WebhookSender;
    readonly webhooksDeliveryWorker: DeliveryWorker;
    readonly webhooksEventLog: EventLog;
    /** Delivered, retrying and dead-lettered counts of a project (the dashboard's overview). */
    readonly webhooksHealth: DeliveryHealthReads;
    readonly webhooksEventStream: EventStream;
    /** "Send a test event" to a project's default webhook URL. */
    readonly webhooksTestEvents: WebhookTestEvents;
    /** Other plugins' webhooks in their own wire format and signature (`WEBHOOK_SIGNERS`), through the outbox. */
    readonly webhooksProtocolDeliveries: ProtocolDeliveries;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const WEBHOOKS_EXPORTS: readonly ServiceName[] = ['webhooksEventLog', 'webhooksEventStream', 'webhooksProtocolDeliveries'];

export { retryWebhookTool } from './mcp-tools.js';
/** The webhook API's routes at a mount, for a mirror of it (the sandbox's). */
export { webhookApiRoutes, type WebhookApiMount, type WebhookOperation } from './routes.js';
export type { EventLog, RedeliverResult, ResendResult } from './services/event-log.js';
export { DELIVERY_STATUSES, type DeliveryStatus, type LoggedEventType, type ProtocolEventType } from './delivery-status.js';
export { WEBHOOK_SIGNERS, type SignedRequest, type SigningItem, type WebhookSigner } from './signers.js';
export type { ProtocolDeliveries, ProtocolDelivery, ProtocolDeliveryView } from './services/protocol-deliveries.js';
export type { DeliveryHealthReads } from './services/delivery-health.js';
export type { DeliveryLogEntry } from './services/event-log.js';
export { nominalSchedule } from './services/retry-schedule.js';
export { WEBHOOK_RESEND_RULES, type ResendRule } from './resend-rules.js';

import { definePlugin, isDevelopment, service, serviceValue, withDeps } from '@gw/kernel';
import { WEBHOOKS_PAGE_DEPS, webhooksPage } from './dashboard/webhooks-page.js';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { HEALTH_SECTION_DEPS, healthSection } from './dashboard/health-section.js';
import { invoicePageParts } from '@gw/plugin-invoices/contract';
import { INVOICE_DELIVERIES_DEPS, invoiceDeliveriesPart } from './dashboard/invoice-deliveries.js';
import { WEBHOOK_URL_PAGE_DEPS, webhookUrlPage } from './dashboard/webhook-url-page.js';
import { WEBHOOKS_EXPORTS } from './contract.js';
import { m0001Webhooks } from '../migrations/0001_webhooks.js';
import { m0002EventStream } from '../migrations/0002_event_stream.js';
import { m0003MetricsIndexes } from '../migrations/0003_metrics_indexes.js';
import { m0004ProtocolDeliveries } from '../migrations/0004_protocol_deliveries.js';
import { m0005OutboxClaims } from '../migrations/0005_outbox_claims.js';
import { createWebhookMetrics, registerDeliveryGauges } from './metrics.js';
import { webhooksReadiness } from './readiness.js';
import { webhooksCommands } from './cli.js';
import { WebhooksConfigSchema } from './config.js';
import { webhooksErrors } from './errors.js';
import { webhooksJobs } from './jobs.js';
import { webhooksRoutes } from './routes.js';
import { webhooksMcpTools } from './mcp-tools.js';
import { DeliveryWorker } from './services/delivery-worker.js';
import { EventLog } from './services/event-log.js';
import { DeliveryHealthReads } from './services/delivery-health.js';
import { EventStream } from './services/event-stream.js';
import { ProtocolDeliveries } from './services/protocol-deliveries.js';
import { WebhookOutbox } from './services/outbox.js';
import { WebhookSender } from './services/webhook-sender.js';
import { WebhookTestEvents } from './services/test-event.js';

/**
 * Outbound webhooks (spec 2.4, 2.5, 3.2, 4.4, 5.2, 6): the transactional outbox behind the
 * kernel's invoice events, signed delivery with retries and dead letters, the delivery log and
 * resends. Receiver-side verification lives in `@gw/webhook-verify` and docs/webhooks.md.
 */
export const webhooksPlugin = definePlugin({
  id: 'webhooks',
  dependsOn: ['tenancy', 'invoices'],
  exports: WEBHOOKS_EXPORTS,
  config: WebhooksConfigSchema,
  errors: [webhooksErrors],
  migrations: [m0001Webhooks, m0002EventStream, m0003MetricsIndexes, m0004ProtocolDeliveries, m0005OutboxClaims],
  register: ({ config, kernelConfig }) => ({
    // Defaults that depend on the run mode are resolved once here (fail-closed outside development).
    webhooksConfig: serviceValue({ ...config, privateAttemptDetails: config.privateAttemptDetails ?? isDevelopment(kernelConfig) }),
    webhooksMetrics: service(['metrics'], ({ metrics }) => createWebhookMetrics(metrics.registry)),
    webhooksOutbox: service(['tenancyProjects', 'notifications'], (deps) => new WebhookOutbox(deps)),
    webhooksSender: service(
      [],
      () =>
        new WebhookSender({
          timeoutMs: config.timeoutMs,
          // Fail-closed: only development chosen explicitly allows private targets by default.
          allowPrivateTargets: config.allowPrivateTargets ?? isDevelopment(kernelConfig),
          maxSocketsPerHost: config.maxSocketsPerHost,
          responseExcerptBytes: config.responseExcerptBytes,
          privateResponseExcerpts: config.privateResponseExcerpts,
        }),
      { dispose: (sender) => sender.close() },
    ),
    webhooksDeliveryWorker: service(
      ['db', 'kernelConfig', 'logger', 'notifications', 'webhooksConfig', 'webhooksMetrics', 'webhooksSender', 'tenancyApiKeys', 'extensions'],
      (deps) => new DeliveryWorker(deps),
    ),
    webhooksProtocolDeliveries: service(
      ['db', 'webhooksConfig', 'webhooksOutbox'],
      (deps) => new ProtocolDeliveries({ ...deps, allowPrivateTargets: config.allowPrivateTargets ?? isDevelopment(kernelConfig) }),
    ),
    webhooksHealth: service(['db'], (deps) => new DeliveryHealthReads(deps)),
    webhooksEventLog: service(
      ['db', 'audit', 'jobs', 'notifications', 'rateLimiter', 'webhooksConfig', 'webhooksOutbox', 'tenancyProjects', 'invoicesService', 'extensions'],
      (deps) => new EventLog(deps),
    ),
    webhooksTestEvents: service(
      ['audit', 'rateLimiter', 'tenancyProjects', 'tenancyApiKeys', 'webhooksConfig', 'webhooksSender'],
      (deps) => new WebhookTestEvents(deps),
    ),
    webhooksEventStream: service(['db', 'notifications'], (deps) => new EventStream(deps), { dispose: (stream) => stream.close() }),
  }),
  // Its dashboard pages (ADR 0011).
  contributes: [
    invoicePageParts(INVOICE_DELIVERIES_DEPS, [invoiceDeliveriesPart]),
    dashboardPages(WEBHOOKS_PAGE_DEPS, [webhooksPage]),
    pageSections(HEALTH_SECTION_DEPS, [healthSection]),
    dashboardPages(WEBHOOK_URL_PAGE_DEPS, [webhookUrlPage]),
  ],
  routes: webhooksRoutes,
  mcpTools: webhooksMcpTools,
  jobs: webhooksJobs,
  cli: webhooksCommands,
  readiness: webhooksReadiness,
  start: withDeps(['metrics', 'db', 'logger', 'kernelRole', 'webhooksMetrics', 'invoiceEvents', 'webhooksOutbox', 'webhooksDeliveryWorker'], async (deps) => {
    registerDeliveryGauges(deps.metrics.registry, deps);
    // Resolved eagerly so the counters are on /metrics before the first delivery.
    void deps.webhooksMetrics;
    deps.invoiceEvents.attach(deps.webhooksOutbox);
    // Deliveries are claimed from the outbox by the processes that run jobs (ADR 0013).
    if (deps.kernelRole === 'worker' || deps.kernelRole === 'all') await deps.webhooksDeliveryWorker.start();
  }),
  // The fetch loops end their batches, and deliveries still running past their batch are recorded,
  // before the pool closes (each ends within the sender's timeout).
  stop: withDeps(['webhooksDeliveryWorker'], async (deps) => {
    await deps.webhooksDeliveryWorker.stop();
  }),
});

export * from './contract.js';
export { webhooksErrors } from './errors.js';
export { WebhooksConfigSchema, type WebhooksConfig } from './config.js';
export { DELIVERY_STATUSES, DUE_CHANNEL, type DeliveryStatus } from './delivery-status.js';
export { WebhookOutbox, type WebhookEnvelope, type OutboxEntry } from './services/outbox.js';
export { EventStream, STREAM_CHANNEL, type StreamEvent, type StreamRead } from './services/event-stream.js';
export { EventLog, type DeliveryLogEntry, type ResendResult, type EventListFilter } from './services/event-log.js';
export { DeliveryHealthReads, type DeliveryHealth } from './services/delivery-health.js';
export { DeliveryWorker } from './services/delivery-worker.js';
export { WebhookTestEvents, TEST_EVENT_TYPE, type TestEventResult } from './services/test-event.js';
export { ProtocolDeliveries } from './services/protocol-deliveries.js';
export { retryDelaySeconds, nominalSchedule } from './services/retry-schedule.js';
export { isPrivateAddress } from './services/target-guard.js';
export * from './schemas.js';
export { retryWebhookTool } from './mcp-tools.js';

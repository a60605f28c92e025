import { createCoalescer } from '@gw/kernel';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/** Per-process delivery metrics: what this worker's attempts came to. */
export interface WebhookMetrics {
  /** `gateway_webhook_delivery_attempts_total{outcome}`: delivered, retrying (failed, retry scheduled), dlq. */
  readonly attempts: Counter<'outcome'>;
  /** `gateway_webhook_delivery_duration_seconds`: time to the receiver's answer (or the failure). */
  readonly latency: Histogram;
}

export function createWebhookMetrics(registry: Registry): WebhookMetrics {
  return {
    attempts: new Counter({
      name: 'gateway_webhook_delivery_attempts_total',
      help: 'Webhook delivery attempts recorded by this process, by outcome: delivered, retrying (failed, another attempt scheduled) or dlq (failed for the last time).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    latency: new Histogram({
      name: 'gateway_webhook_delivery_duration_seconds',
      help: "Webhook delivery latency: from the POST to the receiver's answer or the failure.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}

/**
 * Gauges read from the database at scrape time (so every process reports the same truth, whichever
 * worker delivered): the backlog of events not yet delivered, the age of its oldest event, and the
 * dead letters (events every attempt of which failed; a resend is a new event and leaves them as they
 * are, so this only grows and alerts watch its increase). Cheap through the
 * partial indexes of migration 0003.
 */
export function registerDeliveryGauges(registry: Registry, deps: { db: Knex; logger: Logger }): void {
  // One query per scrape for all these gauges (prom-client collects them concurrently): they share the load in flight.
  const shared = createCoalescer<{ backlog: number; oldest: number; dead: number } | undefined>();
  const read = () =>
    shared('delivery', () =>
      deps.db
        .raw<{ rows: { backlog: string; oldest: string | null; dead: string }[] }>(
          `select (select count(*) from webhooks_events where status = 'retrying') as backlog,
                  (select extract(epoch from now() - min(created_at)) from webhooks_events where status = 'retrying') as oldest,
                  (select count(*) from webhooks_events where status = 'dlq') as dead`,
        )
        .then(
          (result) => {
            const row = result.rows[0]!;
            return { backlog: Number(row.backlog), oldest: row.oldest === null ? 0 : Number(row.oldest), dead: Number(row.dead) };
          },
          (error: unknown) => {
            deps.logger.warn({ err: error }, 'webhook delivery gauges unavailable');
            return undefined;
          },
        ),
    );
  const gauge = (name: string, help: string, pick: (values: { backlog: number; oldest: number; dead: number }) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const values = await read();
        if (values) this.set(pick(values));
        else this.reset();
      },
    });
  gauge('gateway_webhook_backlog', 'Webhook events not yet delivered (waiting for their first or next attempt), all projects.', (v) => v.backlog);
  gauge('gateway_webhook_oldest_undelivered_age_seconds', 'Age of the oldest webhook event not yet delivered; 0 when none waits.', (v) => v.oldest);
  gauge('gateway_webhook_dead_letters', 'Webhook events whose every attempt failed (status dlq), all time; a resend is a new event.', (v) => v.dead);
}

import { newId, type JobQueue } from '@gw/kernel';
import type { ApiKeyService } from '@gw/plugin-tenancy';
import { DELIVERY_ATTEMPT_HEADER, EVENT_ID_HEADER, EVENT_TYPE_HEADER, SIGNATURE_HEADER, signWebhook, WEBHOOK_USER_AGENT } from '@gw/webhook-verify';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Job } from 'pg-boss';
import type { WebhooksConfig } from '../config.js';
import { DELIVER_JOB, type DeliverJobData } from '../delivery-status.js';
import { WebhookEvent } from '../models/webhook-event.js';
import { retryDelaySeconds } from './retry-schedule.js';
import type { SendOutcome, WebhookSender } from './webhook-sender.js';

interface Due {
  readonly event: WebhookEvent;
  readonly attempt: number;
}

/**
 * Delivers a batch of `webhooks.deliver` jobs: loads their events in one query, signs each body
 * with every valid secret of its project, POSTs them all concurrently, then records every
 * attempt, every new status and every next-attempt job in one transaction.
 *
 * A job whose event has moved on (already delivered, or its attempt already recorded because a
 * worker died after recording and before completing the job) is dropped: that is what makes
 * a retried job harmless. Delivery is at least once; receivers deduplicate on `event_id`.
 */
export class DeliveryWorker {
  constructor(
    private readonly deps: {
      db: Knex;
      jobs: JobQueue;
      logger: Logger;
      webhooksConfig: WebhooksConfig;
      webhooksSender: WebhookSender;
      tenancyApiKeys: ApiKeyService;
    },
  ) {}

  async deliver(jobs: readonly Job<DeliverJobData>[]): Promise<void> {
    const rows = await WebhookEvent.query(this.deps.db).whereIn('id', [...new Set(jobs.map((job) => job.data.eventId))]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const due: Due[] = [];
    const seen = new Set<string>();
    for (const job of jobs) {
      const event = byId.get(job.data.eventId);
      if (!event || event.status !== 'retrying' || event.attempts !== job.data.attempt - 1 || seen.has(event.id)) continue;
      seen.add(event.id);
      due.push({ event, attempt: job.data.attempt });
    }
    if (due.length === 0) return;
    const secrets = await this.deps.tenancyApiKeys.liveSecretsMany(due.map((d) => d.event.project_id));
    const startedAt = new Date();
    const outcomes = await Promise.all(due.map((d) => this.attempt(d, secrets.get(d.event.project_id) ?? [])));
    await this.record(due, outcomes, startedAt);
  }

  private async attempt({ event, attempt }: Due, secrets: readonly string[]): Promise<SendOutcome> {
    if (secrets.length === 0) {
      return { ok: false, httpStatus: null, latencyMs: 0, error: 'the project has no active API secret to sign with', responseExcerpt: null };
    }
    const signature = signWebhook({ secrets, rawBody: event.body, timestamp: Math.floor(Date.now() / 1000) });
    return this.deps.webhooksSender.post(event.target_url!, event.body, {
      'user-agent': WEBHOOK_USER_AGENT,
      [SIGNATURE_HEADER]: signature,
      [EVENT_ID_HEADER]: event.id,
      [EVENT_TYPE_HEADER]: event.event_type,
      [DELIVERY_ATTEMPT_HEADER]: String(attempt),
    });
  }

  private async record(due: readonly Due[], outcomes: readonly SendOutcome[], startedAt: Date): Promise<void> {
    const config = this.deps.webhooksConfig;
    const now = new Date();
    const updates = due.map(({ event, attempt }, i) => {
      const outcome = outcomes[i]!;
      const delay = outcome.ok ? undefined : retryDelaySeconds(attempt, config);
      const status = outcome.ok ? 'delivered' : delay === undefined ? 'dlq' : 'retrying';
      return { event, attempt, outcome, status, next: delay === undefined ? null : new Date(now.getTime() + delay * 1000) };
    });
    await this.deps.db.transaction(async (trx) => {
      // The guard `attempts = attempt - 1` makes a second recording of the same attempt a no-op.
      const applied = await trx.raw<{ rows: { id: string }[] }>(
        `update webhooks_events e
            set status = u.status, attempts = u.attempt, last_attempt_at = ?, last_http_status = u.http_status,
                last_error = u.error, next_attempt_at = u.next_at,
                delivered_at = case when u.status = 'delivered' then ?::timestamptz else e.delivered_at end, updated_at = ?
           from unnest(?::text[], ?::text[], ?::int[], ?::int[], ?::text[], ?::timestamptz[]) as u(id, status, attempt, http_status, error, next_at)
          where e.id = u.id and e.attempts = u.attempt - 1 and e.status = 'retrying'
          returning e.id`,
        [
          now,
          now,
          now,
          updates.map((u) => u.event.id),
          updates.map((u) => u.status),
          updates.map((u) => u.attempt),
          updates.map((u) => u.outcome.httpStatus),
          updates.map((u) => (u.outcome.error ? u.outcome.error.slice(0, 1000) : null)),
          updates.map((u) => u.next),
        ] as unknown as readonly Knex.RawBinding[],
      );
      const recorded = new Set(applied.rows.map((row) => row.id));
      const kept = updates.filter((u) => recorded.has(u.event.id));
      if (kept.length === 0) return;
      await trx('webhooks_attempts')
        .insert(
          kept.map((u) => ({
            id: newId(),
            event_id: u.event.id,
            attempt: u.attempt,
            target_url: u.event.target_url,
            started_at: startedAt,
            http_status: u.outcome.httpStatus,
            latency_ms: u.outcome.latencyMs,
            error: u.outcome.error ? u.outcome.error.slice(0, 1000) : null,
            response_excerpt: u.outcome.responseExcerpt,
          })),
        )
        .onConflict(['event_id', 'attempt'])
        .ignore();
      const retries = kept.filter((u) => u.status === 'retrying');
      await this.deps.jobs.insertInTransaction(
        trx,
        DELIVER_JOB,
        retries.map((u) => ({ data: { eventId: u.event.id, attempt: u.attempt + 1 } satisfies DeliverJobData, startAfter: u.next! })),
      );
    });
    const failed = updates.filter((u) => !u.outcome.ok);
    if (failed.length > 0) {
      this.deps.logger.info({ failed: failed.length, delivered: updates.length - failed.length, dlq: failed.filter((u) => u.status === 'dlq').map((u) => u.event.id) }, 'webhook deliveries failed; retries scheduled');
    }
  }
}

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

/** The columns of an event row that a delivery needs. */
type DueEvent = Pick<WebhookEvent, 'id' | 'project_id' | 'event_type' | 'body' | 'target_url' | 'status' | 'attempts'>;

interface Due {
  readonly event: DueEvent;
  readonly attempt: number;
}

interface Update extends Due {
  readonly outcome: SendOutcome;
  readonly status: 'delivered' | 'dlq' | 'retrying';
  readonly next: Date | null;
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
    // Jobs name their project, so the secrets load beside the events instead of after them.
    // Plain rows of the needed columns: model instances and date parsing cost more than the POST.
    const [rows, secrets] = await Promise.all([
      this.deps.db.raw<{ rows: DueEvent[] }>(
        `select id, project_id, event_type, body, target_url, status, attempts from ${WebhookEvent.tableName} where id = any(?::text[])`,
        [[...new Set(jobs.map((job) => job.data.eventId))]],
      ),
      this.deps.tenancyApiKeys.liveSecretsMany(jobs.map((job) => job.data.projectId)),
    ]);
    const byId = new Map(rows.rows.map((row) => [row.id, row]));
    const due: Due[] = [];
    const seen = new Set<string>();
    for (const job of jobs) {
      const event = byId.get(job.data.eventId);
      if (!event || event.status !== 'retrying' || event.attempts !== job.data.attempt - 1 || seen.has(event.id)) continue;
      seen.add(event.id);
      due.push({ event, attempt: job.data.attempt });
    }
    if (due.length === 0) return;
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
    const updates: Update[] = due.map(({ event, attempt }, i) => {
      const outcome = outcomes[i]!;
      const delay = outcome.ok ? undefined : retryDelaySeconds(attempt, config);
      const status = outcome.ok ? 'delivered' : delay === undefined ? 'dlq' : 'retrying';
      return { event, attempt, outcome, status, next: delay === undefined ? null : new Date(now.getTime() + delay * 1000) };
    });
    const retries = updates.filter((u) => u.status === 'retrying');
    // Without retries the record is one statement, atomic on its own; retry jobs need a transaction.
    if (retries.length === 0) {
      await this.recordStatement(this.deps.db, updates, startedAt, now);
    } else {
      await this.deps.db.transaction(async (trx) => {
        const recorded = await this.recordStatement(trx, updates, startedAt, now);
        await this.deps.jobs.insertInTransaction(
          trx,
          DELIVER_JOB,
          retries
            .filter((u) => recorded.has(u.event.id))
            .map((u) => ({ data: { eventId: u.event.id, attempt: u.attempt + 1, projectId: u.event.project_id } satisfies DeliverJobData, startAfter: u.next! })),
        );
      });
    }
    const failed = updates.filter((u) => !u.outcome.ok);
    if (failed.length > 0) {
      this.deps.logger.info({ failed: failed.length, delivered: updates.length - failed.length, dlq: failed.filter((u) => u.status === 'dlq').map((u) => u.event.id) }, 'webhook deliveries failed; retries scheduled');
    }
  }

  /**
   * Writes every new status and its attempt row in one statement. The guard
   * `attempts = attempt - 1` makes a second recording of the same attempt a no-op; returns the
   * ids whose attempt this call recorded.
   */
  private async recordStatement(db: Knex, updates: readonly Update[], startedAt: Date, now: Date): Promise<Set<string>> {
    // One JSON parameter: the driver's array literal escaping cost more than the statement itself.
    const rows = JSON.stringify(
      updates.map((u) => ({
        id: u.event.id,
        attempt_id: newId(),
        status: u.status,
        attempt: u.attempt,
        http_status: u.outcome.httpStatus,
        latency_ms: u.outcome.latencyMs,
        // PostgreSQL's json parser refuses a lone surrogate escape, which a cut can leave.
        error: u.outcome.error ? u.outcome.error.slice(0, 1000).toWellFormed() : null,
        excerpt: u.outcome.responseExcerpt?.toWellFormed() ?? null,
        next_at: u.next?.toISOString() ?? null,
      })),
    );
    const result = await db.raw<{ rows: { id: string }[] }>(
      `with u as (
         select * from json_to_recordset(?::json)
           as u(id text, attempt_id text, status text, attempt int, http_status int, latency_ms int, error text, excerpt text, next_at timestamptz)
       ), applied as (
         update webhooks_events e
            set status = u.status, attempts = u.attempt, last_attempt_at = ?, last_http_status = u.http_status,
                last_error = u.error, next_attempt_at = u.next_at,
                delivered_at = case when u.status = 'delivered' then ?::timestamptz else e.delivered_at end, updated_at = ?
           from u
          where e.id = u.id and e.attempts = u.attempt - 1 and e.status = 'retrying'
          returning e.id, e.target_url
       ), attempts as (
         insert into webhooks_attempts (id, event_id, attempt, target_url, started_at, http_status, latency_ms, error, response_excerpt)
         select u.attempt_id, u.id, u.attempt, a.target_url, ?, u.http_status, u.latency_ms, u.error, u.excerpt
           from applied a join u on u.id = a.id
         on conflict (event_id, attempt) do nothing
       )
       select id from applied`,
      [rows, now, now, now, startedAt],
    );
    return new Set(result.rows.map((row) => row.id));
  }
}

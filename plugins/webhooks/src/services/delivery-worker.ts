import { randomUUID } from 'node:crypto';
import { newId, sql, sqlQuery, type Extensions, type JobQueue } from '@gw/kernel';
import type { ApiKeyService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Job, JobInsert } from 'pg-boss';
import type { WebhooksConfig } from '../config.js';
import type { WebhookMetrics } from '../metrics.js';
import { DELIVER_JOB, type DeliverJobData } from '../delivery-status.js';
import type { WebhookEvent } from '../models/webhook-event.js';
import { WEBHOOK_SIGNERS, type SignedRequest } from '../signers.js';
import { retryDelaySeconds } from './retry-schedule.js';
import { partnerView, type SendOutcome, type WebhookSender } from './webhook-sender.js';

/** The columns of an event row that a delivery needs. */
type DueEvent = Pick<WebhookEvent, 'id' | 'project_id' | 'mode' | 'event_type' | 'body' | 'target_url' | 'status' | 'attempts' | 'signer' | 'signer_ref'>;

interface Due {
  readonly event: DueEvent;
  readonly attempt: number;
  /**
   * A protocol delivery's signed request; `null` when its signer answered that the subscription
   * is gone (nothing is sent, the delivery ends as `skipped`). Absent for the gateway's own events.
   */
  readonly signed?: SignedRequest | null;
}

/** The outcome recorded for a protocol delivery whose subscription is gone: nothing was sent. */
const SUBSCRIPTION_GONE = 'not sent: its subscription was deleted or disabled, or no longer takes this event (no retry)';

interface Sent extends Due {
  readonly outcome: SendOutcome;
}

interface Update extends Sent {
  readonly status: 'delivered' | 'dlq' | 'retrying' | 'skipped';
  readonly next: Date | null;
}

/**
 * Delivers a batch of `webhooks.deliver` jobs: loads their events in one query, signs each body
 * with every valid secret of its project (a protocol delivery: through its `WEBHOOK_SIGNERS`
 * signer, with its subscription's own secret), POSTs them all concurrently, then records every
 * attempt, every new status and every next-attempt job in one transaction.
 *
 * A batch waits at most `batchWaitMs` for its deliveries. Those still running then (a receiver
 * that hangs) become stragglers: the batch records the others and ends, so its fetch loop goes
 * on, and each straggler is recorded when it ends (within the sender's timeout). Until then a
 * fallback job guards it: the same attempt again, due after the timeout, written with the
 * batch's record and deleted with the straggler's. A worker that dies with stragglers in flight
 * thus loses none of them; they are delivered again by whichever worker runs the fallback.
 *
 * A job whose event has moved on (already delivered, or its attempt already recorded because a
 * worker died after recording and before completing the job) is dropped: that is what makes
 * a retried job harmless. Delivery is at least once; receivers deduplicate on `event_id`.
 */
export class DeliveryWorker {
  /** Recordings of stragglers still to come; awaited on shutdown. */
  private readonly stragglers = new Set<Promise<void>>();

  constructor(
    private readonly deps: {
      db: Knex;
      jobs: JobQueue;
      logger: Logger;
      webhooksConfig: WebhooksConfig;
      webhooksMetrics: WebhookMetrics;
      webhooksSender: WebhookSender;
      tenancyApiKeys: ApiKeyService;
      extensions: Extensions;
    },
  ) {}

  async deliver(jobs: readonly Job<DeliverJobData>[]): Promise<void> {
    // Jobs name their project, so the secrets load beside the events instead of after them.
    // Plain rows of the needed columns: model instances and date parsing cost more than the POST.
    const [rows, secrets] = await Promise.all([
      sqlQuery<DueEvent>(
        this.deps.db,
        sql`select id, project_id, mode, event_type, body, target_url, status, attempts, signer, signer_ref from webhooks_events where id = any(${[...new Set(jobs.map((job) => job.data.eventId))]}::text[])`,
      ),
      this.deps.tenancyApiKeys.liveSecretsMany(jobs.map((job) => job.data.projectId)),
    ]);
    const byId = new Map(rows.map((row) => [row.id, row]));
    const pending: Due[] = [];
    const seen = new Set<string>();
    for (const job of jobs) {
      const event = byId.get(job.data.eventId);
      if (!event || event.status !== 'retrying' || event.attempts !== job.data.attempt - 1 || seen.has(event.id)) continue;
      seen.add(event.id);
      pending.push({ event, attempt: job.data.attempt });
    }
    if (pending.length === 0) return;
    const due = await this.signed(pending);
    const startedAt = new Date();
    const sending = due.map((d) => this.attempt(d, secrets.get(d.event.project_id) ?? []));
    const outcomes = await settledWithin(sending, this.deps.webhooksConfig.batchWaitMs);
    const finished: Sent[] = [];
    const straggling: { due: Due; outcome: Promise<SendOutcome>; fallbackJobId: string }[] = [];
    due.forEach((d, i) => {
      const outcome = outcomes[i];
      if (outcome) finished.push({ ...d, outcome });
      else straggling.push({ due: d, outcome: sending[i]!, fallbackJobId: randomUUID() });
    });
    // Due once the straggler's own timeout has passed and then the time a dead worker's jobs are
    // given before another worker takes them over (room for the straggler's record).
    const config = this.deps.webhooksConfig;
    const fallbackAt = new Date(Date.now() + config.timeoutMs + config.expireInSeconds * 1000);
    await this.record(
      finished,
      startedAt,
      straggling.map((s) => ({ id: s.fallbackJobId, data: jobData(s.due.event, s.due.attempt), startAfter: fallbackAt })),
      [],
    );
    if (straggling.length > 0) this.track(this.recordStragglers(straggling, startedAt));
  }

  /** Waits until every straggler in flight is recorded (on shutdown; each ends within the timeout). */
  async settle(): Promise<void> {
    while (this.stragglers.size > 0) await Promise.allSettled([...this.stragglers]);
  }

  private track(recording: Promise<void>): void {
    this.stragglers.add(recording);
    void recording.finally(() => this.stragglers.delete(recording));
  }

  /** Records a batch's stragglers together once the last has ended, deleting their fallback jobs. */
  private async recordStragglers(straggling: readonly { due: Due; outcome: Promise<SendOutcome>; fallbackJobId: string }[], startedAt: Date): Promise<void> {
    try {
      const outcomes = await Promise.all(straggling.map((s) => s.outcome));
      await this.record(
        straggling.map((s, i) => ({ ...s.due, outcome: outcomes[i]! })),
        startedAt,
        [],
        straggling.map((s) => s.fallbackJobId),
      );
    } catch (error) {
      // Never thrown on (nobody awaits this but shutdown): their fallback jobs stay and deliver
      // these attempts again.
      this.deps.logger.error(
        { err: error, events: straggling.map((s) => s.due.event.id) },
        'recording slow webhook deliveries failed; their fallback jobs will retry them',
      );
    }
  }

  /**
   * `due` with the signed requests of its protocol deliveries: each signer signs its own in one
   * call. A signer no plugin contributes (its plugin was turned off) has no subscription left.
   */
  private async signed(due: readonly Due[]): Promise<Due[]> {
    const protocol = due.filter((d) => d.event.signer !== null);
    if (protocol.length === 0) return [...due];
    const signers = new Map(this.deps.extensions.of(WEBHOOK_SIGNERS).map((c) => [c.item.id, c.item]));
    const answers = new Map<string, SignedRequest | null>();
    for (const id of new Set(protocol.map((d) => d.event.signer!))) {
      const batch = protocol.filter((d) => d.event.signer === id);
      const signer = signers.get(id);
      const signed = signer
        ? await signer.sign(
            batch.map((d) => ({
              ref: d.event.signer_ref!,
              projectId: d.event.project_id,
              body: d.event.body,
              eventId: d.event.id,
              eventType: d.event.event_type,
              attempt: d.attempt,
            })),
          )
        : [];
      batch.forEach((d, i) => answers.set(d.event.id, signed[i] ?? null));
    }
    return due.map((d) => (d.event.signer === null ? d : { ...d, signed: answers.get(d.event.id) ?? null }));
  }

  private async attempt({ event, attempt, signed }: Due, secrets: readonly string[]): Promise<SendOutcome> {
    if (signed === null) return { ok: false, httpStatus: null, latencyMs: 0, error: SUBSCRIPTION_GONE, responseExcerpt: null };
    if (signed) return this.deps.webhooksSender.postProtocol(signed.url ?? event.target_url!, event.body, signed.headers, event.mode);
    return this.deps.webhooksSender.postSigned(
      { url: event.target_url!, body: event.body, eventId: event.id, eventType: event.event_type, attempt, kind: event.mode },
      secrets,
    );
  }

  /**
   * Records finished attempts with their next-attempt jobs, inserts `fallbacks` and deletes the
   * jobs `ended`, all in one commit.
   */
  private async record(sent: readonly Sent[], startedAt: Date, fallbacks: readonly JobInsert<DeliverJobData>[], ended: readonly string[]): Promise<void> {
    const config = this.deps.webhooksConfig;
    const now = new Date();
    const updates: Update[] = sent.map((s) => {
      const { attempt, outcome, signed } = s;
      // A protocol delivery whose subscription is gone ends here; one that asks for no retries
      // ends at its first failure.
      if (signed === null) return { ...s, status: 'skipped', next: null };
      const delay = outcome.ok || signed?.retry === false ? undefined : retryDelaySeconds(attempt, config);
      const status = outcome.ok ? 'delivered' : delay === undefined ? 'dlq' : 'retrying';
      return { ...s, status, next: delay === undefined ? null : new Date(now.getTime() + delay * 1000) };
    });
    const retries = updates.filter((u) => u.status === 'retrying');
    // With nothing but the record to write, it is one statement, atomic on its own.
    let recorded = new Set<string>();
    if (retries.length === 0 && fallbacks.length === 0 && ended.length === 0) {
      recorded = await this.recordStatement(this.deps.db, updates, startedAt, now);
    } else {
      await this.deps.db.transaction(async (trx) => {
        recorded = await this.recordStatement(trx, updates, startedAt, now);
        const next = retries.filter((u) => recorded.has(u.event.id)).map((u) => ({ data: jobData(u.event, u.attempt + 1), startAfter: u.next! }));
        await this.deps.jobs.insertInTransaction(trx, DELIVER_JOB, [...next, ...fallbacks]);
        await this.deps.jobs.deleteInTransaction(trx, DELIVER_JOB, ended);
      });
    }
    // Only the attempts this call recorded (a second recording of the same attempt is a no-op).
    for (const update of updates) {
      // A skipped protocol delivery made no attempt to count.
      if (!recorded.has(update.event.id) || update.status === 'skipped') continue;
      this.deps.webhooksMetrics.attempts.inc({ outcome: update.status });
      this.deps.webhooksMetrics.latency.observe(update.outcome.latencyMs / 1000);
    }
    const failed = updates.filter((u) => !u.outcome.ok && u.status !== 'skipped');
    if (failed.length > 0) {
      this.deps.logger.info(
        { failed: failed.length, delivered: updates.length - failed.length, dlq: failed.filter((u) => u.status === 'dlq').map((u) => u.event.id) },
        'webhook deliveries failed; retries scheduled',
      );
    }
  }

  /**
   * Writes every new status and its attempt row in one statement. The guard
   * `attempts = attempt - 1` makes a second recording of the same attempt a no-op; returns the
   * ids whose attempt this call recorded.
   */
  private async recordStatement(db: Knex, updates: readonly Update[], startedAt: Date, now: Date): Promise<Set<string>> {
    // One JSON parameter: the driver's array literal escaping cost more than the statement itself.
    const details = this.deps.webhooksConfig.privateAttemptDetails === true;
    const rows = JSON.stringify(
      updates.map((u) => {
        // The stored attempt is what partners read back (REST, MCP, dashboard).
        const outcome = partnerView(u.outcome, details);
        return {
          id: u.event.id,
          attempt_id: newId(),
          status: u.status,
          attempt: u.attempt,
          http_status: outcome.httpStatus,
          latency_ms: outcome.latencyMs,
          // PostgreSQL's json parser refuses a lone surrogate escape, which a cut can leave.
          error: outcome.error ? outcome.error.slice(0, 1000).toWellFormed() : null,
          excerpt: outcome.responseExcerpt?.toWellFormed() ?? null,
          next_at: u.next?.toISOString() ?? null,
          // A protocol delivery's subscription URL changed since the event was written: the attempt went there.
          target_url: u.signed?.url ?? null,
        };
      }),
    );
    const result = await db.raw<{ rows: { id: string }[] }>(
      `with u as (
         select * from json_to_recordset(?::json)
           as u(id text, attempt_id text, status text, attempt int, http_status int, latency_ms int, error text, excerpt text, next_at timestamptz, target_url text)
       ), applied as (
         update webhooks_events e
            set status = u.status, attempts = u.attempt, last_attempt_at = ?, last_http_status = u.http_status,
                target_url = coalesce(u.target_url, e.target_url),
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

function jobData(event: DueEvent, attempt: number): DeliverJobData {
  return { eventId: event.id, attempt, projectId: event.project_id };
}

/**
 * The values of `promises` that settle within `ms`, `undefined` for the others (they go on).
 * Rejects as soon as one rejects.
 */
function settledWithin<T>(promises: readonly Promise<T>[], ms: number): Promise<(T | undefined)[]> {
  const results: (T | undefined)[] = new Array<T | undefined>(promises.length).fill(undefined);
  let remaining = promises.length;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve([...results]), ms);
    promises.forEach((promise, i) =>
      promise.then(
        (value) => {
          results[i] = value;
          remaining -= 1;
          if (remaining === 0) {
            clearTimeout(timer);
            resolve(results);
          }
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      ),
    );
  });
}

import { newId, sql, sqlQuery, type Extensions, type KernelConfig, type Notifications } from '@gw/kernel';
import type { ApiKeyService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { WebhooksConfig } from '../config.js';
import type { WebhookMetrics } from '../metrics.js';
import { DUE_CHANNEL } from '../delivery-status.js';
import type { WebhookEvent } from '../models/webhook-event.js';
import { WEBHOOK_SIGNERS, type SignedRequest } from '../signers.js';
import { retryDelaySeconds } from './retry-schedule.js';
import { partnerView, type SendOutcome, type WebhookSender } from './webhook-sender.js';

/** The columns of an event row that a delivery needs. */
type DueEvent = Pick<WebhookEvent, 'id' | 'project_id' | 'mode' | 'event_type' | 'body' | 'target_url' | 'attempts' | 'signer' | 'signer_ref'>;

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

/** How often an idle fetch loop looks for due events without a notification (retries fall due without one). */
const POLL_MS = 1_000;
/** The longest pause of a fetch loop whose claims keep failing (the database is away). */
const MAX_FAILURE_PAUSE_MS = 30_000;

interface Sent extends Due {
  readonly outcome: SendOutcome;
}

interface Update extends Sent {
  readonly status: 'delivered' | 'dlq' | 'retrying' | 'skipped';
  readonly next: Date | null;
}

interface Straggler {
  readonly due: Due;
  readonly outcome: Promise<SendOutcome>;
}

/**
 * Delivers due webhook events straight from the outbox (ADR 0013). Each fetch loop claims up to
 * `batchSize` due rows (`retrying`, `next_attempt_at` passed) with `for update skip locked` in a
 * transaction that it keeps open while their POSTs run, so several loops and worker processes
 * share the work without a row going to two of them, and a worker that dies (SIGKILL, a lost
 * connection) leaves its rows locked by nobody: its transaction ends with its connection
 * (`idle_in_transaction_session_timeout` bounds a silent one) and the rows are due again at once.
 * Each body is signed with every valid secret of its project (a protocol delivery: through its
 * `WEBHOOK_SIGNERS` signer, with its subscription's own secret), all are POSTed concurrently, and
 * one statement in the same transaction records every outcome on the event rows: an attempt that
 * delivers is carried by its event row alone, one that fails also writes its `webhooks_attempts`
 * row. A delivered event thus costs one row write.
 *
 * A batch waits at most `batchWaitMs` for its deliveries. Those still running then (a receiver
 * that hangs) become stragglers: the batch records the others and leases the stragglers' rows
 * (`next_attempt_at` after the timeout plus `expireInSeconds`) before it commits, so its fetch
 * loop goes on; each straggler is recorded when it ends (within the sender's timeout). A worker
 * that dies with stragglers in flight loses none: their rows fall due when the lease ends and
 * whichever worker claims them sends the same attempt again.
 *
 * A batch whose record fails (the database failing after the POSTs) is rolled back and its rows
 * put off by 2^n seconds (n: their `record_failures`, at most an hour), then sent again. The
 * record only applies to a row still at the attempt it sent (`attempts = attempt - 1`), which
 * makes a second recording of the same attempt a no-op. Delivery is at least once; receivers
 * deduplicate on `event_id`.
 */
export class DeliveryWorker {
  /** Recordings of stragglers still to come; awaited on shutdown. */
  private readonly stragglers = new Set<Promise<void>>();
  private readonly loops: Promise<void>[] = [];
  /** Idle loops waiting for a notification or their next look. */
  private readonly sleepers = new Set<() => void>();
  /** Counts notifications, so a loop that was busy when one came looks again at once. */
  private wakeups = 0;
  private running = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: {
      db: Knex;
      kernelConfig: KernelConfig;
      logger: Logger;
      notifications: Notifications;
      webhooksConfig: WebhooksConfig;
      webhooksMetrics: WebhookMetrics;
      webhooksSender: WebhookSender;
      tenancyApiKeys: ApiKeyService;
      extensions: Extensions;
    },
  ) {}

  /**
   * Starts the fetch loops (processes with the worker role): `workers` of them, at most half the
   * application pool, since each holds a connection while its batch is on the wire.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.unsubscribe = await this.deps.notifications.subscribe(DUE_CHANNEL, { onNotification: () => this.wake(), onGap: () => this.wake() });
    const loops = Math.max(1, Math.min(this.deps.webhooksConfig.workers, Math.floor(this.deps.kernelConfig.database.poolMax / 2)));
    if (loops < this.deps.webhooksConfig.workers)
      this.deps.logger.warn(
        { workers: this.deps.webhooksConfig.workers, loops, poolMax: this.deps.kernelConfig.database.poolMax },
        'webhook delivery runs fewer fetch loops than configured: each holds a database connection during its batch (raise database.poolMax)',
      );
    for (let i = 0; i < loops; i += 1) this.loops.push(this.loop());
  }

  /** Stops the fetch loops after their current batch, then waits until every straggler is recorded. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.wake();
    await Promise.allSettled(this.loops.splice(0));
    await this.settle();
  }

  /** Waits until every straggler in flight is recorded (on shutdown; each ends within the timeout). */
  async settle(): Promise<void> {
    while (this.stragglers.size > 0) await Promise.allSettled([...this.stragglers]);
  }

  private wake(): void {
    this.wakeups += 1;
    for (const sleeper of [...this.sleepers]) sleeper();
  }

  private async loop(): Promise<void> {
    let failures = 0;
    while (this.running) {
      const seen = this.wakeups;
      let full = false;
      try {
        full = (await this.deliverDue()) === this.deps.webhooksConfig.batchSize;
        failures = 0;
      } catch (error) {
        failures += 1;
        this.deps.logger.error({ err: error, failures }, 'claiming due webhook deliveries failed; trying again');
      }
      // A full batch means more are due; a notification during the batch may mean so.
      if (failures === 0 && (full || this.wakeups !== seen)) continue;
      await this.sleep(failures === 0 ? POLL_MS : Math.min(POLL_MS * 2 ** failures, MAX_FAILURE_PAUSE_MS));
    }
  }

  private sleep(ms: number): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  /** Claims, sends and records one batch of due events; returns how many it claimed. */
  async deliverDue(): Promise<number> {
    const config = this.deps.webhooksConfig;
    let claimed: DueEvent[] = [];
    let stragglers: Straggler[] = [];
    let startedAt = new Date();
    let recorded: { updates: Update[]; ids: Set<string> } | undefined;
    try {
      await this.deps.db.transaction(async (trx) => {
        // A worker that stops talking mid-batch (its host cut off) releases its rows after this;
        // a live one is idle in the transaction only while the batch waits for its POSTs.
        await trx.raw(`select set_config('idle_in_transaction_session_timeout', ?, true)`, [String(config.batchWaitMs + config.expireInSeconds * 1000)]);
        // Plain rows of the needed columns: model instances and date parsing cost more than the POST.
        claimed = await sqlQuery<DueEvent>(
          trx,
          sql`select id, project_id, mode, event_type, body, target_url, attempts, signer, signer_ref
                from webhooks_events
               where status = 'retrying' and next_attempt_at <= now()
               order by next_attempt_at
               limit ${config.batchSize}
                 for update skip locked`,
        );
        if (claimed.length === 0) return;
        const [secrets, due] = await Promise.all([
          this.deps.tenancyApiKeys.liveSecretsMany(claimed.map((event) => event.project_id)),
          this.signed(claimed.map((event) => ({ event, attempt: event.attempts + 1 }))),
        ]);
        startedAt = new Date();
        const sending = due.map((d) => this.attempt(d, secrets.get(d.event.project_id) ?? []));
        const outcomes = await settledWithin(sending, config.batchWaitMs);
        const finished: Sent[] = [];
        due.forEach((d, i) => {
          const outcome = outcomes[i];
          if (outcome) finished.push({ ...d, outcome });
          else stragglers.push({ due: d, outcome: sending[i]! });
        });
        recorded = await this.record(trx, finished, startedAt);
        if (stragglers.length > 0) {
          // Due again once the straggler's own timeout has passed and then the time a dead
          // worker's batch is given (room for the straggler's record).
          const lease = new Date(Date.now() + config.timeoutMs + config.expireInSeconds * 1000);
          await sqlQuery(trx, sql`update webhooks_events set next_attempt_at = ${lease} where id = any(${stragglers.map((s) => s.due.event.id)}::text[])`);
        }
      });
    } catch (error) {
      if (claimed.length === 0) throw error;
      // The POSTs went out but their record did not commit: the rows are due again, put off so a
      // failing record is not a busy loop of repeated deliveries. The stragglers are still
      // recorded when they end (their record applies only if nothing moved the row on).
      recorded = undefined;
      await this.putOff(claimed, error);
    }
    if (recorded) this.observe(recorded.updates, recorded.ids);
    if (stragglers.length > 0) this.track(this.recordStragglers(stragglers, startedAt));
    stragglers = [];
    return claimed.length;
  }

  private track(recording: Promise<void>): void {
    this.stragglers.add(recording);
    void recording.finally(() => this.stragglers.delete(recording));
  }

  /** Records a batch's stragglers together once the last has ended. */
  private async recordStragglers(straggling: readonly Straggler[], startedAt: Date): Promise<void> {
    try {
      const outcomes = await Promise.all(straggling.map((s) => s.outcome));
      const recorded = await this.record(
        this.deps.db,
        straggling.map((s, i) => ({ ...s.due, outcome: outcomes[i]! })),
        startedAt,
      );
      this.observe(recorded.updates, recorded.ids);
    } catch (error) {
      // Never thrown on (nobody awaits this but shutdown): their leases end and they are sent again.
      this.deps.logger.error(
        { err: error, events: straggling.map((s) => s.due.event.id) },
        'recording slow webhook deliveries failed; they will be sent again when their lease ends',
      );
    }
  }

  /** After a batch's record failed: its rows wait 2^record_failures seconds (at most an hour) before they are claimed again. */
  private async putOff(claimed: readonly DueEvent[], cause: unknown): Promise<void> {
    this.deps.logger.error({ err: cause, events: claimed.length }, 'recording webhook deliveries failed; they will be sent again after a pause');
    await sqlQuery(
      this.deps.db,
      sql`update webhooks_events
             set next_attempt_at = now() + make_interval(secs => least(3600, power(2, record_failures))), record_failures = record_failures + 1
           where id = any(${claimed.map((event) => event.id)}::text[]) and status = 'retrying' and next_attempt_at <= now()`,
    );
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
   * Records finished attempts (their statuses and next attempts) in `db`, one statement: returns
   * the updates and the ids this call recorded (a second recording of an attempt is a no-op).
   */
  private async record(db: Knex, sent: readonly Sent[], startedAt: Date): Promise<{ updates: Update[]; ids: Set<string> }> {
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
    const ids = updates.length === 0 ? new Set<string>() : await this.recordStatement(db, updates, startedAt, now);
    return { updates, ids };
  }

  /** Counts and logs the attempts a record wrote. */
  private observe(updates: readonly Update[], recorded: ReadonlySet<string>): void {
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
   * Writes every new status and last attempt on the event rows in one statement, and the attempt
   * rows of the attempts that did not deliver (a delivering attempt stays on its event row alone:
   * `EventLog` shows it from there). The guard `attempts = attempt - 1` makes a second recording
   * of the same attempt a no-op; returns the ids whose attempt this call recorded.
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
          attempt_id: u.status === 'delivered' ? null : newId(),
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
    // Without a failed attempt the statement writes the event rows only.
    const logged = updates.some((u) => u.status !== 'delivered')
      ? sql`, attempts as (
         insert into webhooks_attempts (id, event_id, attempt, target_url, started_at, http_status, latency_ms, error, response_excerpt)
         select u.attempt_id, u.id, u.attempt, a.target_url, ${startedAt}, u.http_status, u.latency_ms, u.error, u.excerpt
           from applied a join u on u.id = a.id
          where u.attempt_id is not null
         on conflict (event_id, attempt) do nothing
       )`
      : sql``;
    const recorded = await sqlQuery<{ id: string }>(
      db,
      sql`with u as (
         select * from json_to_recordset(${rows}::json)
           as u(id text, attempt_id text, status text, attempt int, http_status int, latency_ms int, error text, excerpt text, next_at timestamptz, target_url text)
       ), applied as (
         update webhooks_events e
            set status = u.status, attempts = u.attempt, last_attempt_at = ${now}, last_started_at = ${startedAt}, last_http_status = u.http_status,
                last_latency_ms = u.latency_ms, last_response_excerpt = u.excerpt,
                target_url = coalesce(u.target_url, e.target_url),
                last_error = u.error, next_attempt_at = u.next_at,
                delivered_at = case when u.status = 'delivered' then ${now}::timestamptz else e.delivered_at end, updated_at = ${now}
           from u
          where e.id = u.id and e.attempts = u.attempt - 1 and e.status = 'retrying'
          returning e.id, e.target_url
       )${logged}
       select id from applied`,
    );
    return new Set(recorded.map((row) => row.id));
  }
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

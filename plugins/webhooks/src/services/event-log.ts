import {
  type Actor,
  type AuditLog,
  coreErrors,
  type OutboundEventType,
  type Extensions,
  isAppError,
  isUlid,
  keysetPage,
  type KeysetPage,
  type KeysetPageRequest,
  type JobQueue,
  newId,
  type Notifications,
  parseInstant,
  sql,
  sqlQuery,
  type RateLimiter,
  isoTime,
  isoTimeOrNull,
} from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { WebhooksConfig } from '../config.js';
import { DUE_CHANNEL, REDELIVER_JOB, type DeliveryStatus, type LoggedEventType, type RedeliverJobData } from '../delivery-status.js';
import { webhooksErrors } from '../errors.js';
import { WebhookAttempt } from '../models/webhook-attempt.js';
import { WebhookEvent } from '../models/webhook-event.js';
import { WEBHOOK_SIGNERS } from '../signers.js';
import type { WebhookEnvelope, WebhookOutbox } from './outbox.js';

/** How long after an event's pending attempt is due a deferred redelivery looks again. */
const REDELIVER_GRACE_MS = 2_000;

export interface EventListFilter extends KeysetPageRequest {
  readonly status?: DeliveryStatus | undefined;
  readonly event_type?: OutboundEventType | undefined;
  readonly since?: string | undefined;
  readonly invoice_id?: string | undefined;
}

export interface DeliveryAttemptView {
  attempt: number;
  started_at_iso: string;
  target_url: string;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface DeliveryLogEntry {
  id: string;
  /** An outbound event type, or a protocol delivery's own type (`signer` set). */
  event_type: LoggedEventType;
  /** The protocol of a protocol delivery (`btcpay`: BTCPay's body and `BTCPay-Sig`); null for the gateway's own events. */
  signer: string | null;
  mode: WebhookEvent['mode'];
  project_id: string;
  invoice_id: string | null;
  original_event_id: string | null;
  status: DeliveryStatus;
  target_url: string | null;
  attempts: number;
  next_attempt_at_iso: string | null;
  last_attempt_at_iso: string | null;
  last_http_status: number | null;
  last_error: string | null;
  delivered_at_iso: string | null;
  created_at: number;
  created_at_iso: string;
  payload: Record<string, unknown>;
  attempt_log: DeliveryAttemptView[];
}

/** What one redelivery did: the event (same id) and its status after it. */
export interface RedeliverResult {
  event_id: string;
  status: DeliveryStatus;
}

export interface ResendResult {
  event_id: string;
  original_event_id: string;
  event_type: LoggedEventType;
  project_id: string;
  invoice_id: string | null;
  target_url: string | null;
  created_at: number;
  created_at_iso: string;
}

/**
 * The delivery log (spec 4.4): events of one project with their attempts, newest first, and
 * resends. Every read and write is scoped to the caller's project.
 */
export class EventLog {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      jobs: JobQueue;
      notifications: Notifications;
      rateLimiter: RateLimiter;
      webhooksConfig: WebhooksConfig;
      webhooksOutbox: WebhookOutbox;
      tenancyProjects: ProjectService;
      invoicesService: InvoiceService;
      extensions: Extensions;
    },
  ) {}

  /** Newest first; pages keyed by id (`id < cursor`), stable while events are written. */
  async list(projectId: string, filter: EventListFilter): Promise<KeysetPage<DeliveryLogEntry>> {
    const query = WebhookEvent.query(this.deps.db)
      .where('project_id', projectId)
      .orderBy('id', 'desc')
      .limit(filter.limit + 1);
    if (filter.cursor) query.where('id', '<', filter.cursor);
    if (filter.status) query.where('status', filter.status);
    if (filter.event_type) query.where('event_type', filter.event_type);
    if (filter.invoice_id) query.where('invoice_id', filter.invoice_id);
    if (filter.since) query.where('created_at', '>=', parseInstant(filter.since, 'since', 'start'));
    return keysetPage(await query, filter.limit, (page) => this.views(page));
  }

  /** One event of the project with its attempts; 404 `event_not_found` otherwise. */
  async get(projectId: string, eventId: string): Promise<DeliveryLogEntry> {
    const event = await this.find(this.deps.db, projectId, eventId);
    return (await this.views([event]))[0]!;
  }

  /**
   * Re-enqueues the event's payload as a new event (fresh `event_id`, `original_event_id` set)
   * to the target resolved now: the invoice's `callback_url`, else the project's default URL
   * (none: the new event is `skipped`). A protocol delivery is resent to the same subscription,
   * its body made a new delivery by its signer (`WebhookSigner.resendBody`); 409
   * `event_not_resendable` when no enabled plugin signs it. The original row is never changed. 404
   * `event_not_found` for a non-ULID id or another project's event; 429 beyond the resend limit.
   * `refuse` lists delivery statuses that cannot be resent (the sandbox refuses in-flight and
   * dead-lettered events): 409 `event_not_resendable`, nothing written.
   */
  async resend(projectId: string, eventId: string, actor: Actor, options: { refuse?: readonly DeliveryStatus[] } = {}): Promise<ResendResult> {
    const original = await this.find(this.deps.db, projectId, eventId);
    if (options.refuse?.includes(original.status)) {
      throw webhooksErrors.event_not_resendable({
        message: `The event is ${original.status}; only delivered or skipped events can be resent here.`,
        details: { status: original.status },
      });
    }
    const signer = original.signer === null ? undefined : this.deps.extensions.of(WEBHOOK_SIGNERS).find((c) => c.item.id === original.signer)?.item;
    if (original.signer !== null && !signer) {
      throw webhooksErrors.event_not_resendable({
        message: `The event is a delivery of the ${original.signer} plugin, which is not enabled; it cannot be resent.`,
        details: { signer: original.signer },
      });
    }
    const limit = this.deps.webhooksConfig.resendRateLimitPerMinute;
    await this.deps.rateLimiter.consume({ key: `webhooks.resend:project:${projectId}`, limit, windowSeconds: 60 });
    // A protocol delivery goes to its subscription again (whose URL its signer knows at each attempt).
    const targetUrl = signer ? original.target_url : await this.currentTarget(original);
    const id = newId();
    const createdAt = new Date();
    let body: string;
    if (signer) {
      body = signer.resendBody({ ref: original.signer_ref!, body: original.body, eventId: id, originalEventId: original.id });
    } else {
      const envelope = JSON.parse(original.body) as WebhookEnvelope;
      body = JSON.stringify({
        event_id: id,
        event_type: envelope.event_type,
        mode: envelope.mode,
        created_at_iso: createdAt.toISOString(),
        original_event_id: original.id,
        data: envelope.data,
      } satisfies WebhookEnvelope);
    }
    await this.deps.db.transaction(async (trx) => {
      await this.deps.webhooksOutbox.write(trx, [
        {
          id,
          projectId,
          mode: original.mode,
          invoiceId: original.invoice_id,
          eventType: original.event_type,
          originalEventId: original.id,
          body,
          targetUrl,
          createdAt,
          ...(original.signer === null ? {} : { signer: { id: original.signer, ref: original.signer_ref! } }),
        },
      ]);
      await this.deps.audit.record(
        { ...actor, action: 'webhook.resend', projectId, target: `webhook_event:${id}`, details: { original_event_id: original.id, target_url: targetUrl } },
        trx,
      );
    });
    return {
      event_id: id,
      original_event_id: original.id,
      event_type: original.event_type,
      project_id: projectId,
      invoice_id: original.invoice_id,
      target_url: targetUrl,
      created_at: Math.floor(createdAt.getTime() / 1000),
      created_at_iso: createdAt.toISOString(),
    };
  }

  /** The newest event of the invoice whose type is one of `eventTypes` (its id), if any. */
  async latestOfInvoice(projectId: string, invoiceId: string, eventTypes: readonly OutboundEventType[]): Promise<string | undefined> {
    const row = await WebhookEvent.query(this.deps.db)
      .where({ project_id: projectId, invoice_id: invoiceId })
      .whereNull('original_event_id')
      .whereIn('event_type', eventTypes)
      .orderBy('id', 'desc')
      .select('id')
      .first();
    return row?.id;
  }

  /**
   * Delivers an existing event once more under its own `event_id` (what a receiver sees when a
   * delivery is duplicated). A delivered or dead-lettered event goes back to `retrying`, due at
   * once for its next attempt. An event still on its way (`retrying`) gets a `webhooks.redeliver` job
   * due after its pending attempt, so the receiver still sees it twice; `redeliverDue` carries it
   * out. An event without a target has nowhere to go and is left as it is. 404 `event_not_found`
   * as for `get`.
   */
  async redeliver(projectId: string, eventId: string, actor: Actor): Promise<RedeliverResult> {
    return this.deps.db.transaction(async (trx) => {
      if (!isUlid(eventId)) throw webhooksErrors.event_not_found();
      const event = await WebhookEvent.query(trx).findOne({ id: eventId, project_id: projectId }).forUpdate();
      if (!event) throw webhooksErrors.event_not_found();
      return this.redeliverAudited(trx, event, actor);
    });
  }

  /**
   * Replays dead-lettered events of the project (each as `redeliver` does, audited one by one) in
   * one transaction: all of them or none. `selection` is a list of event ids (duplicates count
   * once) or `'all'`, the newest `limit` dead-lettered events. The rows are locked (`for update`,
   * in id order so two replays cannot deadlock) before their status is read, so an event a
   * delivery or another replay is moving cannot be replayed on a stale status. A listed id that is
   * not an event of this project is 404 `event_not_found`, a listed event that is not `dlq` is 409
   * `event_not_dead_lettered` (both with `details.event_ids`), more than `limit` ids is 400
   * `validation_error`; then nothing is replayed. Returns the replayed events, newest first.
   */
  async redeliverDeadLettered(projectId: string, selection: readonly string[] | 'all', limit: number, actor: Actor): Promise<RedeliverResult[]> {
    if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
    const ids = selection === 'all' ? [] : [...new Set(selection)];
    if (ids.length > limit)
      throw coreErrors.validation_error({ message: `At most ${limit} events can be replayed at once; nothing was replayed.`, details: { field: 'event_ids' } });
    const malformed = ids.filter((id) => !isUlid(id));
    // A non-ULID can name no event; refused before PostgreSQL sees it (a NUL would be a 500 there).
    if (malformed.length > 0) throw webhooksErrors.event_not_found({ details: { event_ids: malformed.map((id) => id.slice(0, 64)) } });
    if (selection !== 'all' && ids.length === 0) return [];
    return this.deps.db.transaction(async (trx) => {
      const query = WebhookEvent.query(trx).where('project_id', projectId).forUpdate();
      if (selection === 'all') query.where('status', 'dlq').orderBy('id', 'desc').limit(limit);
      else query.whereIn('id', ids).orderBy('id', 'desc');
      const events = await query;
      if (selection !== 'all') {
        const found = new Set(events.map((e) => e.id));
        const missing = ids.filter((id) => !found.has(id));
        if (missing.length > 0)
          throw webhooksErrors.event_not_found({ message: 'No such webhook event in this project; nothing was replayed.', details: { event_ids: missing } });
        const alive = events.filter((e) => e.status !== 'dlq');
        if (alive.length > 0)
          throw webhooksErrors.event_not_dead_lettered({ details: { event_ids: alive.map((e) => e.id), statuses: alive.map((e) => e.status) } });
      }
      const replayed: RedeliverResult[] = [];
      for (const event of events) replayed.push(await this.redeliverAudited(trx, event, actor));
      return replayed;
    });
  }

  /** The redelivery of `event`, locked in `trx`, with its audit row; an event without a target is left as it is. */
  private async redeliverAudited(trx: Knex.Transaction, event: WebhookEvent, actor: Actor): Promise<RedeliverResult> {
    if (event.target_url === null) return { event_id: event.id, status: event.status };
    await this.deps.audit.record(
      {
        ...actor,
        action: 'webhook.redeliver',
        projectId: event.project_id,
        target: `webhook_event:${event.id}`,
        details: { previous_status: event.status, attempt: event.attempts + 1 },
      },
      trx,
    );
    return { event_id: event.id, status: await this.redeliverLocked(trx, event) };
  }

  /**
   * Carries out a redelivery deferred by `redeliver`: once the event's pending attempt is recorded
   * it goes out again; while it is still retrying the job is put off until after its next attempt.
   * An event deleted since (sandbox reset) is dropped.
   */
  async redeliverDue(eventId: string): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const event = await WebhookEvent.query(trx).findById(eventId).forUpdate();
      if (event && event.target_url !== null) await this.redeliverLocked(trx, event);
    });
  }

  /**
   * `event` is locked in `trx`: either due now for its next attempt, or a redelivery job after the
   * pending attempt. A delivered event's last attempt, carried by its row alone, is first written
   * to the attempt log, since the next attempt's record takes its place on the row.
   */
  private async redeliverLocked(trx: Knex.Transaction, event: WebhookEvent): Promise<DeliveryStatus> {
    const now = new Date();
    if (event.status === 'retrying') {
      const pendingAt = event.next_attempt_at && event.next_attempt_at > now ? event.next_attempt_at : now;
      const startAfter = new Date(pendingAt.getTime() + REDELIVER_GRACE_MS);
      await this.deps.jobs.insertInTransaction(trx, REDELIVER_JOB, [{ data: { eventId: event.id } satisfies RedeliverJobData, startAfter }]);
      return 'retrying';
    }
    await sqlQuery(
      trx,
      sql`insert into webhooks_attempts (id, event_id, attempt, target_url, started_at, http_status, latency_ms, error, response_excerpt)
          select ${newId()}, id, attempts, target_url, last_started_at, last_http_status, coalesce(last_latency_ms, 0), last_error, last_response_excerpt
            from webhooks_events
           where id = ${event.id} and attempts > 0 and last_started_at is not null and target_url is not null
          on conflict (event_id, attempt) do nothing`,
    );
    await WebhookEvent.query(trx).findById(event.id).patch({ status: 'retrying', next_attempt_at: now, updated_at: now });
    await this.deps.notifications.notify(trx, DUE_CHANNEL, '');
    return 'retrying';
  }

  /** Deletes every event of the project and its attempts (the sandbox reset), in `trx`. */
  async purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    return WebhookEvent.query(trx).where('project_id', projectId).delete();
  }

  private async find(db: Knex, projectId: string, eventId: string): Promise<WebhookEvent> {
    if (!isUlid(eventId)) throw webhooksErrors.event_not_found();
    const event = await WebhookEvent.query(db).findOne({ id: eventId, project_id: projectId });
    if (!event) throw webhooksErrors.event_not_found();
    return event;
  }

  private async currentTarget(event: WebhookEvent): Promise<string | null> {
    if (event.invoice_id) {
      try {
        const invoice = await this.deps.invoicesService.get(event.project_id, event.invoice_id);
        if (invoice.callback_url) return invoice.callback_url;
      } catch (error) {
        // An invoice purged since (sandbox reset) leaves the project's default.
        if (!isAppError(error) || error.code !== 'invoice_not_found') throw error;
      }
    }
    return (await this.deps.tenancyProjects.webhookUrls([event.project_id])).get(event.project_id) ?? null;
  }

  private async views(events: readonly WebhookEvent[]): Promise<DeliveryLogEntry[]> {
    const attempts =
      events.length === 0
        ? []
        : await WebhookAttempt.query(this.deps.db)
            .whereIn(
              'event_id',
              events.map((e) => e.id),
            )
            .orderBy(['event_id', 'attempt']);
    const byEvent = new Map<string, DeliveryAttemptView[]>();
    for (const a of attempts) {
      const list = byEvent.get(a.event_id) ?? [];
      list.push({
        attempt: a.attempt,
        started_at_iso: isoTime(a.started_at),
        target_url: a.target_url,
        http_status: a.http_status,
        latency_ms: a.latency_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
      });
      byEvent.set(a.event_id, list);
    }
    // An attempt that delivered has no row: its event row carries it (the last attempt).
    for (const e of events) {
      const list = byEvent.get(e.id) ?? [];
      if (e.attempts === 0 || e.last_started_at === null || e.target_url === null || list.some((a) => a.attempt === e.attempts)) continue;
      list.push({
        attempt: e.attempts,
        started_at_iso: isoTime(e.last_started_at),
        target_url: e.target_url,
        http_status: e.last_http_status,
        latency_ms: e.last_latency_ms ?? 0,
        error: e.last_error,
        response_excerpt: e.last_response_excerpt,
      });
      byEvent.set(e.id, list);
    }
    return events.map((e) => ({
      id: e.id,
      event_type: e.event_type,
      signer: e.signer,
      mode: e.mode,
      project_id: e.project_id,
      invoice_id: e.invoice_id,
      original_event_id: e.original_event_id,
      status: e.status,
      target_url: e.target_url,
      attempts: e.attempts,
      next_attempt_at_iso: e.status === 'retrying' ? isoTimeOrNull(e.next_attempt_at) : null,
      last_attempt_at_iso: isoTimeOrNull(e.last_attempt_at),
      last_http_status: e.last_http_status,
      last_error: e.last_error,
      delivered_at_iso: isoTimeOrNull(e.delivered_at),
      created_at: Math.floor(new Date(e.created_at).getTime() / 1000),
      created_at_iso: isoTime(e.created_at),
      payload: JSON.parse(e.body) as Record<string, unknown>,
      attempt_log: byEvent.get(e.id) ?? [],
    }));
  }
}

import {
  jsonRecords,
  newId,
  packedTexts,
  sql,
  sqlQuery,
  type OutboundEvent,
  type Sql,
  type OutboundEventSink,
  type Notifications,
  type ProjectKind,
} from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { WebhookEnvelope as ContractEnvelope } from '@gw/webhook-verify';
import type { Knex } from 'knex';
import { DUE_CHANNEL, type LoggedEventType } from '../delivery-status.js';
import { STREAM_CHANNEL } from './event-stream.js';

/**
 * The webhook envelope of spec 2.5 (plus `original_event_id` on a resend), as the wire contract
 * defines it, with the `data` the event's producer gave: an invoice, refund, payout or checkout session event.
 */
export type WebhookEnvelope = ContractEnvelope<OutboundEvent['data']>;

/** An event about to be written: everything but the delivery state. */
export interface OutboxEntry {
  readonly id: string;
  readonly projectId: string;
  readonly mode: ProjectKind;
  readonly invoiceId: string | null;
  /** An outbound event type, or a protocol delivery's own type (with `signer`). */
  readonly eventType: LoggedEventType;
  readonly originalEventId: string | null;
  readonly body: string;
  readonly targetUrl: string | null;
  readonly createdAt: Date;
  /** A protocol delivery: the `WEBHOOK_SIGNERS` id that signs it and the subscription it goes to; absent for the gateway's own events. */
  readonly signer?: { readonly id: string; readonly ref: string };
}

/**
 * The transactional outbox. Every event row is inserted in the caller's transaction (one
 * statement for a whole batch), so an event exists exactly when the change it announces
 * committed. A row with a target is written due (`retrying`, `next_attempt_at` its creation): the
 * row is its own delivery job, which the delivery workers claim (ADR 0013), woken by the
 * `webhooks.due` notification sent at commit. Events without any target are written as `skipped`.
 */
export class WebhookOutbox implements OutboundEventSink {
  constructor(private readonly deps: { tenancyProjects: ProjectService; notifications: Notifications }) {}

  async emit(trx: Knex.Transaction, events: readonly OutboundEvent[]): Promise<string[]> {
    // The projects' default targets are read while the rows are built (the caller's earlier
    // statements may still be running on the connection): the rows carry the invoice's own target
    // only, and the insert takes the default from the map it is given.
    const targets = this.deps.tenancyProjects.webhookUrls(
      events.filter((e) => !e.callbackUrl).map((e) => e.projectId),
      trx,
    );
    targets.catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    const entries = events.map((event): OutboxEntry => {
      const id = event.eventId ?? newId();
      const createdAt = new Date();
      const envelope: WebhookEnvelope = {
        event_id: id,
        event_type: event.eventType,
        mode: event.projectKind,
        created_at_iso: createdAt.toISOString(),
        data: event.data,
      };
      return {
        id,
        projectId: event.projectId,
        mode: event.projectKind,
        invoiceId: event.invoiceId,
        eventType: event.eventType,
        originalEventId: null,
        body: JSON.stringify(envelope),
        targetUrl: event.callbackUrl,
        createdAt,
      };
    });
    const rows = outboxRows(entries);
    await this.insert(trx, entries, rows, await targets);
    return entries.map((entry) => entry.id);
  }

  /**
   * Inserts `entries` (those with a target due at once). An id that already exists (a
   * deterministic event id emitted again) is left as it is.
   * Returns the ids actually inserted.
   */
  async write(trx: Knex.Transaction, entries: readonly OutboxEntry[]): Promise<Set<string>> {
    return this.insert(trx, entries, outboxRows(entries), new Map());
  }

  /** {@link write}, the rows already built; an entry without a target takes its project's one in `defaults`. */
  private async insert(trx: Knex.Transaction, given: readonly OutboxEntry[], rows: Sql, defaults: ReadonlyMap<string, string | null>): Promise<Set<string>> {
    if (given.length === 0) return new Set();
    const entries = given.map((entry) => {
      const fallback = defaults.get(entry.projectId);
      return entry.targetUrl === null && fallback !== undefined && fallback !== null ? { ...entry, targetUrl: fallback } : entry;
    });
    // One statement whatever the batch size, the rows as one JSON parameter: a block's thousands
    // of events (each body embeds the invoice view) need neither chunks nor a long statement text.
    const inserted = await sqlQuery<{ id: string }>(
      trx,
      sql`insert into webhooks_events (id, project_id, mode, invoice_id, event_type, original_event_id, body, target_url, status, next_attempt_at, created_at, updated_at, signer, signer_ref)
          select e.id, e.project_id, e.mode, e.invoice_id, e.event_type, e.original_event_id, e.body, t.url,
                 case when t.url is null then 'skipped' else 'retrying' end,
                 case when t.url is null then null else e.created_at end,
                 e.created_at, e.created_at, e.signer, e.signer_ref
            from ${rows} e
           cross join lateral (select coalesce(e.target_url, ${JSON.stringify(Object.fromEntries(defaults))}::jsonb ->> e.project_id) as url) t
          on conflict (id) do nothing
          returning id`,
    );
    const fresh = new Set(inserted.map((row) => row.id));
    // Wakes the delivery workers at commit (the targets the insert resolved are not returned: a
    // skipped event wakes them for nothing, which costs one empty claim).
    if (fresh.size > 0) await this.deps.notifications.notify(trx, DUE_CHANNEL, '');
    // Wakes the event streams (gateway listen) of these projects on every instance, at commit
    // (protocol deliveries are not in the stream).
    for (const projectId of new Set(entries.filter((entry) => fresh.has(entry.id) && !entry.signer).map((entry) => entry.projectId))) {
      await this.deps.notifications.notify(trx, STREAM_CHANNEL, projectId);
    }
    return fresh;
  }
}

/**
 * The rows of `entries` as a relation (built once, before the targets are known): everything but
 * the bodies as one JSON parameter, the bodies as one binary parameter (packedTexts: no escaping
 * of their quotes, no JSON parsing of them).
 */
function outboxRows(entries: readonly OutboxEntry[]): Sql {
  const bodies = packedTexts(entries.map((e) => e.body));
  const rows = jsonRecords(
    entries.map((e, i) => ({
      id: e.id,
      project_id: e.projectId,
      mode: e.mode,
      invoice_id: e.invoiceId,
      event_type: e.eventType,
      original_event_id: e.originalEventId,
      body_at: bodies.at[i],
      body_bytes: bodies.bytes[i],
      target_url: e.targetUrl,
      created_at: e.createdAt.toISOString(),
      signer: e.signer?.id ?? null,
      signer_ref: e.signer?.ref ?? null,
    })),
  );
  return sql`(select r.id, r.project_id, r.mode, r.invoice_id, r.event_type, r.original_event_id, ${bodies.text(sql`r.body_at`, sql`r.body_bytes`)} as body, r.target_url, r.created_at, r.signer, r.signer_ref
                from ${rows} as r(id text, project_id text, mode text, invoice_id text, event_type text, original_event_id text, body_at int, body_bytes int, target_url text, created_at timestamptz, signer text, signer_ref text))`;
}

import { sql, sqlQuery, type KeysetPage, type Notifications } from '@gw/kernel';
import type { Knex } from 'knex';
import { webhooksErrors } from '../errors.js';
import { WebhookEvent } from '../models/webhook-event.js';

/** The notification channel an outbox write announces its projects on (payload: the project id). */
export const STREAM_CHANNEL = 'webhooks.stream';

/** How often a waiting read looks again without a notification (a transaction that held the horizon back may have ended). */
const RECHECK_MS = 1_000;

/** One event of the stream: what a delivery sends, and its headers' values. */
export interface StreamEvent {
  event_id: string;
  event_type: string;
  invoice_id: string | null;
  original_event_id: string | null;
  created_at_iso: string;
  /** The exact body every delivery of the event sends (sign and forward it unchanged). */
  body: string;
}

export interface StreamRead {
  /** Continue after this event id (the last one handled). */
  readonly after?: string | undefined;
  /** Without `after`: from the project's first event, or only events after the newest one. */
  readonly start?: 'earliest' | 'latest' | undefined;
  readonly limit: number;
  /** Seconds to wait for an event when none is ready (long poll); 0 answers at once. */
  readonly wait?: number | undefined;
}

/**
 * The project's webhook events in commit-safe order, for `gateway listen`: a cursor (an event id)
 * always resumes exactly after the events already read, across restarts and gateway instances.
 * Only events of transactions below the snapshot horizon are served (see migration 0002), and a
 * read with nothing ready waits on the `webhooks.stream` notification (sent in the outbox's
 * transaction), so any instance wakes when any other writes. Protocol deliveries (another
 * plugin's wire format and signature, `WEBHOOK_SIGNERS`) are not in the stream. The rows are the record; a lost
 * notification only delays an answer until the next recheck.
 */
export class EventStream {
  private readonly waiters = new Map<string, Set<() => void>>();
  private subscription: Promise<() => void> | undefined;

  constructor(private readonly deps: { db: Knex; notifications: Notifications }) {}

  async read(projectId: string, request: StreamRead): Promise<KeysetPage<StreamEvent>> {
    let position = request.after ? await this.positionOf(projectId, request.after) : undefined;
    if (!position && request.start === 'latest') {
      const [newest] = await sqlQuery<{ id: string }>(
        this.deps.db,
        sql`select id from webhooks_events
             where project_id = ${projectId} and stream_xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint and signer is null
             order by stream_xid desc, id desc
             limit 1`,
      );
      return newest ? { items: [], next_cursor: newest.id } : { items: [] };
    }
    const deadline = Date.now() + Math.max(0, request.wait ?? 0) * 1000;
    for (;;) {
      const items = await this.ready(projectId, position, request.limit);
      if (items.length > 0) return { items, next_cursor: items[items.length - 1]!.event_id };
      const left = deadline - Date.now();
      if (left <= 0) return request.after ? { items, next_cursor: request.after } : { items };
      await this.wakeOrTimeout(projectId, Math.min(left, RECHECK_MS));
    }
  }

  private async positionOf(projectId: string, eventId: string): Promise<{ xid: string; id: string }> {
    const row = (await WebhookEvent.query(this.deps.db).findOne({ project_id: projectId, id: eventId, signer: null }).select('stream_xid', 'id')) as unknown as
      { stream_xid: string; id: string } | undefined;
    if (!row)
      throw webhooksErrors.event_not_found({
        message: `The stream cursor ${eventId} is not an event of this project (a sandbox reset removes events); start again without it.`,
      });
    return { xid: String(row.stream_xid), id: row.id };
  }

  private async ready(projectId: string, position: { xid: string; id: string } | undefined, limit: number): Promise<StreamEvent[]> {
    const after = position ? sql`and (stream_xid, id) > (${position.xid}::bigint, ${position.id})` : sql``;
    const rows = await sqlQuery<{
      id: string;
      event_type: string;
      invoice_id: string | null;
      original_event_id: string | null;
      created_at: Date;
      body: string;
    }>(
      this.deps.db,
      sql`select id, event_type, invoice_id, original_event_id, created_at, body from webhooks_events
           where project_id = ${projectId} and stream_xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint and signer is null ${after}
           order by stream_xid, id
           limit ${limit}`,
    );
    return rows.map((row) => ({
      event_id: row.id,
      event_type: row.event_type,
      invoice_id: row.invoice_id,
      original_event_id: row.original_event_id,
      created_at_iso: row.created_at.toISOString(),
      body: row.body,
    }));
  }

  private async wakeOrTimeout(projectId: string, ms: number): Promise<void> {
    await this.subscribe();
    await new Promise<void>((resolve) => {
      let set = this.waiters.get(projectId);
      if (!set) this.waiters.set(projectId, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        set!.delete(done);
        if (set!.size === 0 && this.waiters.get(projectId) === set) this.waiters.delete(projectId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      set.add(done);
    });
  }

  private subscribe(): Promise<() => void> {
    this.subscription ??= this.deps.notifications
      .subscribe(STREAM_CHANNEL, {
        onNotification: (projectId) => {
          for (const wake of [...(this.waiters.get(projectId) ?? [])]) wake();
        },
        onGap: () => {
          for (const set of [...this.waiters.values()]) for (const wake of [...set]) wake();
        },
      })
      .catch((error: unknown) => {
        this.subscription = undefined;
        throw error;
      });
    return this.subscription;
  }

  /** Stops listening (plugin stop). */
  async close(): Promise<void> {
    const unsubscribe = await this.subscription?.catch(() => undefined);
    unsubscribe?.();
    this.subscription = undefined;
  }
}

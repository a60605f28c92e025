import { newId, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/** How often an instance refreshes the rows of the streams it holds open. */
const REFRESH_SECONDS = 30;
/** A row not refreshed for this long belongs to an instance that is gone: it no longer counts. */
export const STALE_SECONDS = 4 * REFRESH_SECONDS;

/**
 * Caps the status streams (server-sent events and long polls) one client address holds open over
 * every gateway instance, so a client that opens thousands cannot use up the gateway's connections
 * or memory; other payers are unaffected. Each open stream is a row of `checkout_stream_slots`.
 * Taking a slot counts the client's live rows under a transaction advisory lock on the client, so
 * concurrent opens on any instances never pass the limit. Within one process a client's opens
 * queue in memory and only one at a time holds a database connection, and a client that already
 * holds or queues the limit here is refused without one, so a burst from one address cannot take
 * the pool. While streams are open their instance refreshes their rows every 30 s (writing them
 * again if another instance deleted them as stale during a database outage) and deletes every
 * stale row: an instance that died without closing its streams stops counting 120 s after its last
 * refresh, on the database clock.
 */
export class StreamLimiter {
  /** This process's id on its rows. */
  private readonly instance = newId();
  /** The rows this process holds open, with their client. */
  private readonly open = new Map<string, string>();
  /** Per client: slots held here plus opens queued here, and the tail of its queue of opens. */
  private readonly local = new Map<string, { count: number; tail: Promise<unknown> }>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: { db: Knex; logger: Logger; perClient: number }) {}

  /** Takes a slot for `client`; returns the function that gives it back, or undefined at the limit. */
  async acquire(client: string): Promise<(() => void) | undefined> {
    const here = this.local.get(client) ?? { count: 0, tail: Promise.resolve() };
    if (this.closed || here.count >= this.deps.perClient) return undefined;
    here.count++;
    this.local.set(client, here);
    const taking = here.tail.then(() => this.take(client));
    here.tail = taking.catch(() => undefined);
    let id: string | undefined;
    try {
      id = await taking;
    } finally {
      if (id === undefined) this.forget(client);
    }
    if (id === undefined) return undefined;
    const taken = id;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open.delete(taken);
      this.forget(client);
      sqlQuery(this.deps.db, sql`delete from checkout_stream_slots where id = ${taken}`).catch((error: unknown) =>
        this.deps.logger.warn({ err: error }, 'checkout: a closed status stream kept its slot until it goes stale'),
      );
    };
  }

  /** Streams `client` holds open on every instance. */
  async held(client: string): Promise<number> {
    const [row] = await sqlQuery<{ n: number }>(
      this.deps.db,
      sql`select count(*)::int as n from checkout_stream_slots where client = ${client} and seen_at > now() - make_interval(secs => ${STALE_SECONDS})`,
    );
    return row!.n;
  }

  /**
   * Refreshes this process's open rows (writing again any that another instance deleted as stale
   * while this one could not reach the database) and deletes stale ones of every instance. Runs
   * every 30 s while this process holds streams open.
   */
  async refresh(): Promise<void> {
    const { db } = this.deps;
    if (this.open.size > 0) {
      const ids = [...this.open.keys()];
      await sqlQuery(
        db,
        sql`insert into checkout_stream_slots (id, client, instance_id)
            select id, client, ${this.instance} from unnest(${ids}::text[], ${ids.map((id) => this.open.get(id)!)}::text[]) as s(id, client)
            on conflict (id) do update set seen_at = now()`,
      );
      // A stream released while the statement ran may have been written back after its own delete.
      const released = ids.filter((id) => !this.open.has(id));
      if (released.length > 0) await sqlQuery(db, sql`delete from checkout_stream_slots where id = any(${released}::text[])`);
    }
    await sqlQuery(db, sql`delete from checkout_stream_slots where seen_at < now() - make_interval(secs => ${STALE_SECONDS})`);
  }

  /** Refuses new slots, stops refreshing and gives back the slots this process still holds (its streams end with it). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const held = [...this.open.keys()];
    this.open.clear();
    if (held.length > 0) await sqlQuery(this.deps.db, sql`delete from checkout_stream_slots where id = any(${held}::text[])`);
  }

  /** One open of `client` at the database: its row's id, or undefined at the limit (or once closed). */
  private async take(client: string): Promise<string | undefined> {
    if (this.closed) return undefined;
    const id = newId();
    const { db, perClient } = this.deps;
    const taken = await db.transaction(async (trx) => {
      await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`checkout.stream:${client}`}, 0))`);
      const rows = await sqlQuery(
        trx,
        sql`insert into checkout_stream_slots (id, client, instance_id)
            select ${id}, ${client}, ${this.instance}
             where (select count(*) from checkout_stream_slots
                     where client = ${client} and seen_at > now() - make_interval(secs => ${STALE_SECONDS})) < ${perClient}
            returning id`,
      );
      return rows.length === 1;
    });
    if (!taken) return undefined;
    if (this.closed) {
      // Closed while the row was being written: it must not outlive the process's other rows.
      await sqlQuery(db, sql`delete from checkout_stream_slots where id = ${id}`);
      return undefined;
    }
    this.open.set(id, client);
    this.refreshLater();
    return id;
  }

  /** Gives back a client's local place (a slot released, or an open that took none). */
  private forget(client: string): void {
    const here = this.local.get(client);
    if (!here) return;
    here.count--;
    if (here.count <= 0) this.local.delete(client);
  }

  private refreshLater(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.refresh()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'checkout: the open status streams were not refreshed'))
        .finally(() => {
          if (this.open.size > 0) this.refreshLater();
        });
    }, REFRESH_SECONDS * 1000);
    this.timer.unref();
  }
}

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
 * concurrent opens on any instances never pass the limit. While streams are open their instance
 * refreshes their rows every 30 s and deletes every stale row (an instance that died without
 * closing its streams: its rows stop counting after 120 s, on the database clock).
 */
export class StreamLimiter {
  /** This process's id on its rows. */
  private readonly instance = newId();
  /** The rows this process holds open. */
  private readonly open = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { db: Knex; logger: Logger; perClient: number }) {}

  /** Takes a slot for `client`; returns the function that gives it back, or undefined at the limit. */
  async acquire(client: string): Promise<(() => void) | undefined> {
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
    this.open.add(id);
    this.refreshLater();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open.delete(id);
      sqlQuery(db, sql`delete from checkout_stream_slots where id = ${id}`).catch((error: unknown) =>
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

  /** Refreshes this process's open rows and deletes stale ones (every instance's); runs every 30 s while streams are open. */
  async refresh(): Promise<void> {
    const { db } = this.deps;
    if (this.open.size > 0) await sqlQuery(db, sql`update checkout_stream_slots set seen_at = now() where id = any(${[...this.open]}::text[])`);
    await sqlQuery(db, sql`delete from checkout_stream_slots where seen_at < now() - make_interval(secs => ${STALE_SECONDS})`);
  }

  /** Stops refreshing and gives back the slots this process still holds (its streams end with it). */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const held = [...this.open];
    this.open.clear();
    if (held.length > 0) await sqlQuery(this.deps.db, sql`delete from checkout_stream_slots where id = any(${held}::text[])`);
  }

  private refreshLater(): void {
    if (this.timer) return;
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

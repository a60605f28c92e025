import pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { sql, sqlIdentifier, sqlQuery } from './sql.js';

/** What a subscriber is told: a notification's payload, or that some may have been missed. */
export interface NotificationListener {
  /** One notification on the channel (payload as sent, at most 8000 bytes). */
  readonly onNotification: (payload: string) => void;
  /**
   * The listening connection was lost and is back: notifications sent meanwhile are gone, so the
   * subscriber re-reads the state it follows from the database.
   */
  readonly onGap?: () => void;
}

/**
 * PostgreSQL LISTEN/NOTIFY for live updates that must reach every instance (checkout status
 * streams, event streams). A notification is sent inside the transaction of the change it
 * announces, so it is delivered when, and only when, that change commits. Each process keeps one
 * listening connection, opened by the first subscription and re-opened after a failure; subscribers
 * learn of a reconnection through `onGap` and re-read what they follow. Notifications are a
 * wake-up signal, never the record: the rows are.
 */
export interface Notifications {
  /** Sends `payload` on `channel` as part of `db` (a transaction: on commit; a plain connection: at once). */
  notify(db: Knex | Knex.Transaction, channel: string, payload: string): Promise<void>;
  /** Listens on `channel` in this process until the returned function is called. */
  subscribe(channel: string, listener: NotificationListener): Promise<() => void>;
  /** Subscribers in this process, per channel (for metrics and tests). */
  subscriberCount(channel?: string): number;
  /** Closes the listening connection (kernel shutdown). */
  close(): Promise<void>;
}

/** Channel names: lower-case words joined by `_` or `.`, at most 63 bytes (PostgreSQL's identifier limit). */
const CHANNEL = /^[a-z][a-z0-9_.]{0,62}$/;
const MAX_PAYLOAD_BYTES = 7999;

export function createNotifications(options: { url: string; logger: Logger }): Notifications {
  const listeners = new Map<string, Set<NotificationListener>>();
  let client: pg.Client | undefined;
  /** Per channel, the LISTEN of the current connection (cleared when the connection is lost). */
  let listening = new Map<string, Promise<unknown>>();
  let connecting: Promise<pg.Client> | undefined;
  let closed = false;
  let retryMs = 100;
  let retryTimer: NodeJS.Timeout | undefined;

  function check(channel: string): void {
    if (!CHANNEL.test(channel)) throw new Error(`notification channel "${channel}" is not [a-z][a-z0-9_.]{0,62}`);
  }

  async function connect(): Promise<pg.Client> {
    if (client) return client;
    if (!connecting) {
      connecting = (async () => {
        const next = new pg.Client({ connectionString: options.url, application_name: 'gateway-listen' });
        next.on('notification', (message) => {
          for (const listener of [...(listeners.get(message.channel) ?? [])]) {
            try {
              listener.onNotification(message.payload ?? '');
            } catch (error) {
              options.logger.error({ err: error, channel: message.channel }, 'notification listener failed');
            }
          }
        });
        next.on('error', (error) => lost(next, error));
        next.on('end', () => lost(next, new Error('listening connection ended')));
        await next.connect();
        const ready = new Map<string, Promise<unknown>>();
        for (const channel of listeners.keys()) ready.set(channel, next.query(sql`listen ${sqlIdentifier(channel)}`.toQuery()));
        await Promise.all(ready.values());
        listening = ready;
        client = next;
        retryMs = 100;
        return next;
      })().finally(() => (connecting = undefined));
    }
    return connecting;
  }

  function lost(which: pg.Client, error: Error): void {
    if (client !== which) return;
    client = undefined;
    listening = new Map();
    which.removeAllListeners('notification');
    void which.end().catch(() => undefined);
    if (closed) return;
    options.logger.warn({ err: error }, 'notification connection lost; reconnecting');
    scheduleReconnect();
  }

  function scheduleReconnect(): void {
    if (closed || retryTimer || listeners.size === 0) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      connect()
        .then(() => {
          options.logger.info('notification connection restored');
          for (const set of listeners.values()) for (const listener of [...set]) listener.onGap?.();
        })
        .catch((error: unknown) => {
          options.logger.warn({ err: error, retry_ms: retryMs }, 'notification connection failed; retrying');
          retryMs = Math.min(retryMs * 2, 5_000);
          scheduleReconnect();
        });
    }, retryMs);
    retryTimer.unref();
  }

  return {
    async notify(db, channel, payload) {
      check(channel);
      if (Buffer.byteLength(payload) > MAX_PAYLOAD_BYTES) throw new Error(`notification payload on ${channel} exceeds ${MAX_PAYLOAD_BYTES} bytes`);
      await sqlQuery(db, sql`select pg_notify(${channel}, ${payload})`);
    },
    async subscribe(channel, listener) {
      check(channel);
      if (closed) throw new Error('notifications are closed');
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(listener);
      try {
        const connected = await connect();
        let listen = listening.get(channel);
        if (!listen) listening.set(channel, (listen = connected.query(sql`listen ${sqlIdentifier(channel)}`.toQuery())));
        await listen;
      } catch (error) {
        set.delete(listener);
        if (set.size === 0) listeners.delete(channel);
        throw error;
      }
      return () => {
        const current = listeners.get(channel);
        if (!current?.delete(listener) || current.size > 0) return;
        listeners.delete(channel);
        listening.delete(channel);
        void client?.query(sql`unlisten ${sqlIdentifier(channel)}`.toQuery()).catch(() => undefined);
      };
    },
    subscriberCount(channel) {
      if (channel !== undefined) return listeners.get(channel)?.size ?? 0;
      let n = 0;
      for (const set of listeners.values()) n += set.size;
      return n;
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      listeners.clear();
      const open = client ?? (await connecting?.catch(() => undefined));
      client = undefined;
      await open?.end().catch(() => undefined);
    },
  };
}

import { hostname } from 'node:os';
import type { Knex } from 'knex';
import { newId } from '../ids.js';
import { sql, sqlQuery } from '../db/sql.js';

/** A gateway process's listening address, as recorded in `kernel_http_listeners`. */
export interface HttpListener {
  readonly url: string;
  readonly role: string;
  readonly hostname: string;
  readonly pid: number;
  readonly started_at_iso: string;
}

/**
 * Where the running gateway processes listen, in the shared database. A process that did not
 * start the gateway (the CLI) sees none of the gateway's environment: `gateway doctor` reported
 * the default port 8080 for a gateway started with PORT=3000 (issue 33 finding 9). Each gateway
 * records its address after listening and removes it on stop; the row of a process that died
 * is dropped by the next gateway on its host and address, and skipped by `list` when its pid is
 * gone from this host.
 */
export interface HttpListeners {
  /** This process's own address, once `record` ran. */
  readonly own: string | undefined;
  record(url: string, role: string): Promise<void>;
  remove(): Promise<void>;
  /** Addresses recorded by gateway processes that still run (as far as this host can tell), newest first. */
  list(): Promise<HttpListener[]>;
}

export function createHttpListeners(db: Knex): HttpListeners {
  const host = hostname();
  let own: { id: string; url: string } | undefined;
  const alive = (pid: number): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch (error) {
      // EPERM: the process exists but belongs to another user.
      return (error as NodeJS.ErrnoException).code === 'EPERM';
    }
  };
  return {
    get own() {
      return own?.url;
    },
    async record(url, role) {
      const id = newId();
      await db.transaction(async (trx) => {
        await sqlQuery(trx, sql`delete from kernel_http_listeners where hostname = ${host} and (url = ${url} or pid = ${process.pid})`);
        await sqlQuery(trx, sql`insert into kernel_http_listeners (id, url, role, hostname, pid) values (${id}, ${url}, ${role}, ${host}, ${process.pid})`);
      });
      own = { id, url };
    },
    async remove() {
      if (!own) return;
      await sqlQuery(db, sql`delete from kernel_http_listeners where id = ${own.id}`);
      own = undefined;
    },
    async list() {
      const rows = await sqlQuery<{ url: string; role: string; hostname: string; pid: number; started_at: Date }>(
        db,
        sql`select url, role, hostname, pid, started_at from kernel_http_listeners order by started_at desc, id desc`,
      );
      return rows
        .filter((r) => r.hostname !== host || alive(r.pid))
        .map((r) => ({ url: r.url, role: r.role, hostname: r.hostname, pid: r.pid, started_at_iso: new Date(r.started_at).toISOString() }));
    },
  };
}

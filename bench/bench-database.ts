/**
 * PostgreSQL for the benchmarks: `DATABASE_URL` (an admin URL) or an embedded server under
 * .data/postgres-bench; each measured side gets a fresh database, dropped afterwards
 * (BENCH_KEEP_DB=1 keeps it for inspection: EXPLAIN, pg_stat_statements).
 */
import pg from 'pg';
import { pino } from 'pino';
import { sql, sqlIdentifier, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@gw/kernel';

export interface BenchPostgres {
  withDatabase<T>(fn: (url: string) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

export async function benchPostgres(): Promise<BenchPostgres> {
  let embedded: EmbeddedPostgresHandle | undefined;
  let adminUrl = process.env['DATABASE_URL'];
  if (!adminUrl) {
    embedded = await startEmbeddedPostgres({ dataDir: '.data/postgres-bench', port: 54349, database: 'postgres', logger: pino({ level: 'warn' }) });
    adminUrl = embedded.url;
  }
  return {
    async withDatabase(fn) {
      const name = `gw_bench_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(sql`create database ${sqlIdentifier(name)}`.toQuery());
      const url = new URL(adminUrl!);
      url.pathname = `/${name}`;
      try {
        return await fn(url.toString());
      } finally {
        if (process.env['BENCH_KEEP_DB']) console.error(`kept database ${name}`);
        else await admin.query(sql`drop database if exists ${sqlIdentifier(name)} with (force)`.toQuery());
        await admin.end();
      }
    },
    async stop() {
      await embedded?.stop();
    },
  };
}

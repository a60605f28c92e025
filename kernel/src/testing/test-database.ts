import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { sql, sqlIdentifier } from '../db/sql.js';

/** A throw-away database for one test file, cloned from the migrated template when there is one. */
export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  drop(): Promise<void>;
}

/**
 * Creates a fresh database on the test server. `scripts/test.ts` prepares the server (DATABASE_URL,
 * else an embedded PostgreSQL) and a migrated template, and passes them as GW_TEST_ADMIN_URL and
 * GW_TEST_TEMPLATE. Without a template the database starts empty and the kernel migrates it.
 * `options.adminUrl` puts it on another server, `options.empty` skips the template (a database for
 * `pg_restore`, or one the kernel migrates itself).
 */
export async function createTestDatabase(options: { readonly adminUrl?: string; readonly empty?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = options.adminUrl ?? process.env['GW_TEST_ADMIN_URL'] ?? process.env['DATABASE_URL'];
  if (!adminUrl) throw new Error('No test database server: run the tests with `pnpm test` (or set DATABASE_URL).');
  const template = options.empty ? 'template0' : process.env['GW_TEST_TEMPLATE'];
  // The run's pid in the name lets `scripts/test.ts` tell a live run's databases from leftovers.
  const name = `gw_test_${process.env['GW_TEST_RUN'] ?? process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(
      (template ? sql`create database ${sqlIdentifier(name)} template ${sqlIdentifier(template)}` : sql`create database ${sqlIdentifier(name)}`).toQuery(),
    );
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(sql`drop database if exists ${sqlIdentifier(name)} with (force)`.toQuery());
      } finally {
        await client.end();
      }
    },
  };
}

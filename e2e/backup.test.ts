import { execFile } from 'node:child_process';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import test, { type ExecutionContext } from 'ava';
import { createTestDatabase, signedFetch, startTestKernel, type TestDatabase } from '@gw/kernel/testing';
import { ALL_CHAINS } from '@gw/testing';
import { WEBHOOK_PLUGINS, projectWithPools } from '@gw/plugin-webhooks/testing';

const run = promisify(execFile);

/**
 * `pg_dump`/`pg_restore` of the server's major version (older client tools refuse a newer server):
 * Debian's /usr/lib/postgresql/<major>/bin first, else the ones on PATH if their major is at least
 * the server's.
 */
async function clientTools(url: string): Promise<{ dump: string; restore: string }> {
  const { stdout } = await run('psql', ['--no-psqlrc', '--tuples-only', '--no-align', '--command=show server_version_num', url]);
  const major = Math.floor(Number(stdout.trim()) / 10_000);
  const debian = `/usr/lib/postgresql/${major}/bin`;
  if (existsSync(`${debian}/pg_dump`)) return { dump: `${debian}/pg_dump`, restore: `${debian}/pg_restore` };
  const version = (await run('pg_dump', ['--version'])).stdout;
  const client = Number(/(\d+)(?:\.\d+)?/.exec(version)?.[1]);
  if (!(client >= major)) throw new Error(`pg_dump ${client} cannot dump a PostgreSQL ${major} server: install the client tools of version ${major}`);
  return { dump: 'pg_dump', restore: 'pg_restore' };
}
const MASTER_KEY = '0f'.repeat(32);
const config = { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': { ETH: '3000' }, 'security.masterKey': MASTER_KEY };

/**
 * The server the round trip runs on and its client tools: the tests' own server when this machine
 * has `pg_dump` of its major version; otherwise (the embedded PostgreSQL 17 of a run without
 * DATABASE_URL, beside Debian's client tools 15) the machine's own PostgreSQL, whose tools match.
 */
async function backupServer(): Promise<{ adminUrl: string; tools: { dump: string; restore: string } }> {
  const testAdmin = process.env['GW_TEST_ADMIN_URL'] ?? process.env['DATABASE_URL']!;
  const tools = await clientTools(testAdmin).catch(() => undefined);
  if (tools) return { adminUrl: testAdmin, tools };
  const machine = 'postgres://postgres@127.0.0.1:5432/postgres';
  return { adminUrl: machine, tools: await clientTools(machine) };
}

/** The commands of docs/backup.md: `source` dumped, restored into a new empty database (returned, dropped after the test). */
async function dumpAndRestore(
  t: ExecutionContext,
  server: { adminUrl: string; tools: { dump: string; restore: string } },
  source: TestDatabase,
): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-backup-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const dump = join(dir, 'gateway.dump');
  await run(server.tools.dump, ['--format=custom', '--no-owner', `--file=${dump}`, source.url]);
  const target = await createTestDatabase({ adminUrl: server.adminUrl, empty: true });
  t.teardown(() => target.drop());
  await run(server.tools.restore, ['--no-owner', '--exit-on-error', `--dbname=${target.url}`, dump]);
  return target;
}

/** A gateway on a new database of the backup server (dropped after the test) with one testnet project of operator `name`, pools of `chains`. */
async function gatewayToBackUp(t: ExecutionContext, name: string, chains: readonly ChainId[]) {
  const server = await backupServer();
  const source = await createTestDatabase({ adminUrl: server.adminUrl, empty: true });
  t.teardown(() => source.drop());
  const before = await startTestKernel({ plugins: WEBHOOK_PLUGINS, chains: ALL_CHAINS, database: source, config });
  const operator = await before.kernel.cradle.tenancyOperators.create(name, CLI_ACTOR);
  return { server, source, before, project: await projectWithPools(before, operator.id, chains, 'testnet') };
}

test('docs/backup.md: pg_dump, pg_restore into a new database, and the gateway serves the restored data with the same master key', async (t) => {
  const { server, source, before, project } = await gatewayToBackUp(t, 'backup', ['eth']);
  const created = await signedFetch(before.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: 'backup-1', amount_crypto: '0.5', coin: 'eth' },
  });
  t.is(created.status, 201);
  const pool = await before.kernel.cradle.addressPoolStatus.status({ projectId: project.projectId, chain: 'eth' });
  await before.close();

  const target = await dumpAndRestore(t, server, source);

  const after = await startTestKernel({ plugins: WEBHOOK_PLUGINS, chains: ALL_CHAINS, database: target, config });
  t.teardown(() => after.close());
  // Nothing to migrate, the API secret (sealed under the master key) still signs, the invoice is there.
  t.deepEqual(await after.kernel.pendingMigrations(), []);
  const read = await signedFetch(after.url, `/api/v1/invoices/${created.body.id}`, { ...project, method: 'GET' });
  t.is(read.status, 200, JSON.stringify(read.body));
  t.like(read.body, { id: created.body.id, external_id: 'backup-1', amount_crypto: '0.5', address: created.body.address });
  // The pool resumes where it stood (its replenisher may add addresses): no index is handed out twice.
  const [restored] = await after.kernel.cradle.addressPoolStatus.status({ projectId: project.projectId, chain: 'eth' });
  t.like(restored, { allocated: pool[0]!.allocated, highest_allocated_index: pool[0]!.highest_allocated_index, wallet_id: pool[0]!.wallet_id });
  const next = await signedFetch(after.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: 'backup-2', amount_crypto: '0.5', coin: 'eth' },
  });
  t.is(next.status, 201);
  t.not(next.body.address, created.body.address);
  // The job queue came back too (pg-boss lives in the same database).
  t.true(await after.kernel.cradle.jobs.ping());
});

test('docs/backup.md: a restore without the master key it was sealed under cannot use the API secrets', async (t) => {
  const { server, source, before, project } = await gatewayToBackUp(t, 'backup-key', []);
  await before.close();
  const target = await dumpAndRestore(t, server, source);
  const after = await startTestKernel({
    plugins: WEBHOOK_PLUGINS,
    chains: ALL_CHAINS,
    database: target,
    config: { ...config, 'security.masterKey': 'ab'.repeat(32) },
  });
  t.teardown(() => after.close());
  // The project came back (a lost row would also refuse the request, with 401 auth_invalid)...
  t.truthy(await after.kernel.cradle.db('tenancy_projects').where({ id: project.projectId }).first());
  // ...and its secrets are there but do not open under this key (AES-GCM's tag check).
  const credentials = (await after.kernel.cradle.tenancyApiKeys.requestCredentialsMany([project.projectId])).get(project.projectId);
  t.true(credentials?.credentials instanceof Error, 'the sealed secrets open under another master key');
  t.regex((credentials!.credentials as Error).message, /unable to authenticate data/);
  // The signed request fails on the server's side with a code that names it (logged for the
  // operator), not as the partner's bad signature and not as an unexplained 500.
  const read = await signedFetch(after.url, '/api/v1/project', { ...project, method: 'GET' });
  t.is(read.status, 503, JSON.stringify(read.body));
  t.like(read.body, { error_code: 'stored_secret_unreadable' });
});

/**
 * The test entry point (`pnpm test`): prepares a real PostgreSQL (DATABASE_URL when set, else an
 * embedded server on a test port with data under .data/), builds a migrated template database with
 * pg-boss installed, then runs ava; every integration test clones the template into a database of
 * its own. Exits with ava's code. Before any of it, the test files are checked (scripts/test-guard.ts):
 * a file that declares no test, or a `.only`, `.skip` or `.todo`, fails the run, which ava would pass.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import pg from 'pg';
import { pino } from 'pino';
import { createKernel, loadConfig, sql, sqlIdentifier, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@gw/kernel';
import { chains, plugins } from '@gw/app-gateway';
import { avaGlobs, checkTestFiles } from './test-guard.js';

// The files ava will run: its configuration in the working directory, as ava itself reads it.
const refused = checkTestFiles(process.cwd(), await avaGlobs(process.cwd()));
if (refused.length > 0) {
  console.error('scripts/test.ts: the run is refused; it would pass without running every declared test:');
  for (const finding of refused) console.error(`  ${finding.file}: ${finding.problem}`);
  process.exit(1);
}

const logger = pino({ level: 'warn' });
let embedded: EmbeddedPostgresHandle | undefined;
let adminUrl = process.env['DATABASE_URL'];
if (!adminUrl) {
  const dataDir = '.data/postgres-test';
  rmSync(dataDir, { recursive: true, force: true });
  embedded = await startEmbeddedPostgres({ dataDir, port: 54339, database: 'postgres', logger });
  adminUrl = embedded.url;
}
const template = `gw_test_template_${process.pid}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
// Leftovers of earlier runs that died: every test database name carries its run's pid, and runs
// that are still alive (several may share one server) keep theirs.
for (const row of (await admin.query(`select datname from pg_database where datname like 'gw_test_%'`)).rows as { datname: string }[]) {
  const owner = /^gw_test_(?:template_)?(\d+)(?:_|$)/.exec(row.datname)?.[1];
  if (owner && isAlive(Number(owner))) continue;
  await admin.query(sql`drop database if exists ${sqlIdentifier(row.datname)} with (force)`.toQuery());
}
await admin.query(sql`create database ${sqlIdentifier(template)}`.toQuery());
const templateUrl = new URL(adminUrl);
templateUrl.pathname = `/${template}`;
const kernel = createKernel({
  config: loadConfig({
    env: {},
    file: false,
    overrides: { 'database.url': templateUrl.toString(), 'log.level': 'warn', 'security.masterKey': '0f'.repeat(32) },
  }),
  plugins,
  chains,
  role: 'cli',
  logger,
});
await kernel.start();
await kernel.stop();
// A template must have no open connections while it is cloned.
await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [template]);

const args = process.argv.slice(2);
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, ['node_modules/ava/entrypoints/cli.mjs', ...args], {
    stdio: 'inherit',
    env: { ...process.env, GW_TEST_ADMIN_URL: adminUrl, GW_TEST_TEMPLATE: template, GW_TEST_RUN: String(process.pid) },
  });
  child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
});
const leftovers = await leftoverProcesses();
if (leftovers.length > 0) {
  console.error(
    `\nscripts/test.ts: the tests left ${leftovers.length} process(es) running (stopped now); every test must stop what it starts, with its process group:`,
  );
  for (const p of leftovers) console.error(`  pid ${p.pid}: ${p.command}`);
  for (const p of leftovers) killQuietly(p.pid);
}
await admin.query(sql`drop database if exists ${sqlIdentifier(template)} with (force)`.toQuery()).catch(() => undefined);
await admin.end();
await embedded?.stop();
process.exit(code !== 0 ? code : leftovers.length > 0 ? 1 : 0);

/**
 * Processes of this run still alive after ava ended: every process the tests start inherits
 * GW_TEST_RUN=<this pid> (apps started with their own environment pass it on), whatever its
 * parent or process group. A few seconds of grace for those being torn down as ava exits.
 */
async function leftoverProcesses(): Promise<{ pid: number; command: string }[]> {
  const marker = `GW_TEST_RUN=${process.pid}`;
  const scan = () => {
    const found: { pid: number; command: string }[] = [];
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      // No /proc (not Linux): the check cannot run; the run's own outcome stands.
      return found;
    }
    for (const entry of entries) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      try {
        if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(marker)) continue;
        found.push({ pid, command: readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ').trim().slice(0, 200) });
      } catch {
        // Gone meanwhile, or not ours to read.
      }
    }
    return found;
  };
  for (let i = 0; i < 30; i++) {
    if (scan().length === 0) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return scan();
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

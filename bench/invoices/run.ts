/**
 * Benchmark: signed `POST /api/v1/invoices` per second and latency at C concurrent keep-alive
 * connections, the real gateway beside a baseline measured in the same run (a minimal Koa route
 * doing HMAC verify + one idempotent INSERT into the same PostgreSQL). Each side runs in its own
 * process; the load generator is this process. Every request carries a fresh external_id and a
 * fresh signature. Prints a table and the throughput ratio.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/invoices/run.ts [--seconds 15] [--connections 50] [--rounds 2]
 *      [--projects 6] [--sides baseline,gateway] [--route create|project]
 * PostgreSQL: DATABASE_URL (an admin URL; a fresh database is created per side) or an embedded
 * server under .data/postgres-bench.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import pg from 'pg';
import { benchPostgres } from '../bench-database.js';
import { startTsxChild, stopChild } from '../child-process.js';
import { percentile, processCpuMs, TICK_MS } from '../measure.js';
import { benchOptions } from '../bench-options.js';
import { signRequest } from '@gw/kernel';

const values = benchOptions({ seconds: 15, connections: 50, rounds: 2, projects: 6, warmup: 3, sides: undefined, route: 'create' });
const { seconds, connections, rounds } = values;
// Requests go round-robin to several projects: one pool holds at most 10,000 free addresses, so six
// pools cover 13 s (warm-up included) at 4,600 creates/s before any create would share an address.
const projectCount = values.projects;
const warmup = values.warmup;

// `project` (signed GET /api/v1/project) isolates authentication and the HTTP stack from invoice creation.
const route = values.route as 'create' | 'project';
// The baseline has no GET /api/v1/project: that route measures the gateway alone unless asked.
const sides = (values.sides ?? (route === 'project' ? 'gateway' : 'baseline,gateway')).split(',') as ('baseline' | 'gateway')[];

const postgres = await benchPostgres();
const withDatabase = postgres.withDatabase;

interface Target {
  url: string;
  projects: { projectId: string; secret: string }[];
  coin: string;
}

async function startServer(mode: 'baseline' | 'gateway', databaseUrl: string, poolSize: number): Promise<{ target: Target; child: ChildProcess }> {
  const server = new URL('./server.ts', import.meta.url).pathname;
  const { child, line } = await startTsxChild([server, mode, databaseUrl, String(poolSize), String(projectCount)], /^\{"url":/, {
    profile: process.env['BENCH_CPU_PROF'] === mode,
  });
  return { target: JSON.parse(line) as Target, child };
}

interface Result {
  requests: number;
  errors: number;
  seconds: number;
  latenciesMs: number[];
}

let sequence = 0;
/** C loops, each sending one signed create after the other over a keep-alive connection. */
async function load(target: Target, durationSeconds: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(route === 'create' ? '/api/v1/invoices' : '/api/v1/project', target.url);
  const latencies: number[] = [];
  let errors = 0;
  // Status of every unexpected answer (0: no answer, e.g. a reset connection).
  const unexpected = new Map<number, number>();
  const started = performance.now();
  const deadline = started + durationSeconds * 1000;
  const send = () =>
    new Promise<number>((resolve, reject) => {
      sequence += 1;
      const { projectId, secret } = target.projects[sequence % target.projects.length]!;
      const body = route === 'create' ? JSON.stringify({ external_id: `bench-${process.pid}-${sequence}`, amount_usd: 12.5, coin: target.coin }) : '';
      const timestamp = Math.floor(Date.now() / 1000);
      const req = request(url, {
        method: route === 'create' ? 'POST' : 'GET',
        agent,
        headers: {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
          'X-Project-Id': projectId,
          'X-Timestamp': String(timestamp),
          'X-Signature': signRequest({ secret, method: route === 'create' ? 'POST' : 'GET', target: `${url.pathname}${url.search}`, timestamp, rawBody: body }),
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const status = await send().catch(() => 0);
        latencies.push(performance.now() - t0);
        if (status !== (route === 'create' ? 201 : 200)) {
          errors += 1;
          unexpected.set(status, (unexpected.get(status) ?? 0) + 1);
        }
      }
    }),
  );
  agent.destroy();
  if (errors > 0) console.error(`unexpected answers by status: ${JSON.stringify(Object.fromEntries(unexpected))}`);
  return { requests: latencies.length, errors, seconds: (performance.now() - started) / 1000, latenciesMs: latencies };
}

/**
 * CPU time (ms) of the processes of one side, read from /proc (PostgreSQL on this machine): the
 * server process, the database's backends, this process (the load generator), and the machine's
 * busy and idle time. Taken before and after the measured load; differences are per side.
 */
interface CpuSample {
  server: number;
  postgres: Map<number, number>;
  loadgen: number;
  busy: number;
  idle: number;
}
async function sampleCpu(db: pg.Client, serverPid: number): Promise<CpuSample | undefined> {
  try {
    const backends = await db.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    const [cpu] = readFileSync('/proc/stat', 'utf8').split('\n');
    const ticks = cpu!.trim().split(/\s+/).slice(1).map(Number);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    const busy = ticks.reduce((sum, t) => sum + t, 0) - idle;
    const usage = process.cpuUsage();
    return {
      server: processCpuMs(serverPid),
      postgres: new Map(backends.rows.map((row) => [row.pid, processCpuMs(row.pid)])),
      loadgen: (usage.user + usage.system) / 1000,
      busy: busy * TICK_MS,
      idle: idle * TICK_MS,
    };
  } catch {
    return undefined;
  }
}
/**
 * `BENCH_WAIT_EVENTS=1`: samples the side's PostgreSQL backends (`pg_stat_activity`) every 5 ms
 * during the measured load; `stop` returns how many backends were, on average, in each
 * (state, wait event type, wait event): where the database's sessions spend the run.
 */
function sampleWaits(databaseUrl: string): { stop(): Promise<Map<string, number>> } {
  const client = new pg.Client({ connectionString: databaseUrl });
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    await client.connect();
    while (running) {
      const found = await client.query<{ state: string; type: string; event: string; n: number }>(
        `select coalesce(state, '-') as state, coalesce(wait_event_type, 'running') as type, coalesce(wait_event, '-') as event, count(*)::int as n
           from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend' group by 1, 2, 3`,
      );
      samples += 1;
      for (const row of found.rows)
        counts.set(`${row.state} | ${row.type} | ${row.event}`, (counts.get(`${row.state} | ${row.type} | ${row.event}`) ?? 0) + row.n);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await client.end();
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return new Map([...counts].map(([key, n]) => [key, n / Math.max(1, samples)]));
    },
  };
}

function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): Row['cpu'] {
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  const us = (ms: number) => (ms * 1000) / requests;
  return {
    server: us(after.server - before.server),
    postgres: us(postgres),
    loadgen: us(after.loadgen - before.loadgen),
    machine: us(after.busy - before.busy),
    idle: us(after.idle - before.idle),
  };
}

interface Row {
  side: string;
  cpu?: { server: number; postgres: number; loadgen: number; machine: number; idle: number } | undefined;
  round: number;
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
}

const rows: Row[] = [];
// The most free addresses the pool keeps; a run that uses them all continues on shared (overlay) addresses.
const poolSize = 10_000;
for (let round = 1; round <= rounds; round += 1) {
  for (const side of sides) {
    await withDatabase(async (databaseUrl) => {
      const { target, child } = await startServer(side, databaseUrl, poolSize);
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        await load(target, warmup);
        const waits = process.env['BENCH_WAIT_EVENTS'] ? sampleWaits(databaseUrl) : undefined;
        const before = await sampleCpu(db, child.pid!);
        const result = await load(target, seconds);
        const after = await sampleCpu(db, child.pid!);
        if (waits) {
          const average = [...(await waits.stop())].sort((a, b) => b[1] - a[1]);
          console.error(`${side} round ${round}, backends by state | wait event type | wait event (mean over the load):`);
          for (const [key, n] of average) if (n >= 0.005) console.error(`${n.toFixed(2).padStart(8)}  ${key}`);
        }
        const sorted = [...result.latenciesMs].sort((a, b) => a - b);
        const cpu = before && after ? cpuPerRequest(before, after, result.requests) : undefined;
        rows.push({
          side,
          round,
          requests: result.requests,
          errors: result.errors,
          rps: result.requests / result.seconds,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          cpu,
        });
        if (side === 'gateway' && route === 'create') {
          // Beyond the pools' free rows creates share addresses (overlay): a different, slower path.
          const shared = await db.query<{ n: string }>('select count(*) as n from invoices_invoices where address_shared');
          if (Number(shared.rows[0]!.n) > 0) console.error(`WARNING: ${shared.rows[0]!.n} creates shared an address (the pools ran out); use more --projects`);
        }
        console.error(`${side} round ${round}: ${Math.round(result.requests / result.seconds)} req/s, ${result.errors} errors`);
      } finally {
        await db.end();
        await stopChild(child);
      }
    });
  }
}
await postgres.stop();

console.log(`\nsigned invoice creates, ${connections} connections, ${seconds} s per side after ${warmup} s warm-up, node ${process.version}\n`);
console.log('| side | round | requests | non-201 | creates/s | p50 ms | p99 ms |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.side} | ${r.round} | ${r.requests} | ${r.errors} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`);
console.log(
  "\nCPU per request in µs during the measured load (from /proc; PostgreSQL: the side's backends), and the machine's busy and idle time per request:\n",
);
console.log('| side | round | server | postgres | load generator | machine busy | machine idle |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  if (r.cpu)
    console.log(
      `| ${r.side} | ${r.round} | ${r.cpu.server.toFixed(0)} | ${r.cpu.postgres.toFixed(0)} | ${r.cpu.loadgen.toFixed(0)} | ${r.cpu.machine.toFixed(0)} | ${r.cpu.idle.toFixed(0)} |`,
    );
const mean = (side: string) => rows.filter((r) => r.side === side).reduce((s, r) => s + r.rps, 0) / rounds;
if (sides.includes('baseline') && sides.includes('gateway'))
  console.log(`\ngateway / baseline throughput: ${(mean('gateway') / mean('baseline')).toFixed(2)} (means over ${rounds} rounds)`);
process.exit(0);

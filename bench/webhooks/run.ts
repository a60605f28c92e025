/**
 * Benchmark: webhook events per second from the outbox to a local receiver, and p99 enqueue to
 * delivered, beside a baseline measured in the same run: raw signed POSTs from Node (this process,
 * keep-alive, the worker's connection limit) to the same receiver.
 *
 * Gateway side: a fresh database and the real worker app (`apps/worker`, its own process). Three
 * measurements per round, the events written through the outbox by this process:
 * 1. drain (the headline figure): N events wait in the outbox, written while no worker ran; a
 *    worker starts and delivers them; N over the time from its readiness to the last arrival;
 * 2. burst: N events written in transactions of 200 as fast as this process can while the worker
 *    delivers; N over the time from the first enqueue to the last arrival (bounded by the
 *    enqueueing, which shares the machine);
 * 3. steady: `--steady-rate` events/s for `--steady-seconds`; p50/p99 of enqueue to delivered
 *    (arrival minus the envelope's `created_at_iso`) without a backlog.
 * The receiver (its own process) verifies every signature on both sides.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/webhooks/run.ts [--events 20000] [--rounds 2] [--connections 128] [--steady-rate 1000] [--steady-seconds 10] [--phases drain,burst,steady]
 * Each gateway phase also prints the CPU seconds the worker, the receiver and all PostgreSQL
 * processes used during it (from /proc, Linux only), to show where the machine's time went.
 * PostgreSQL: DATABASE_URL (an admin URL; a fresh database per round) or an embedded server
 * under .data/postgres-bench. Diagnostics: BENCH_CPU_PROF=worker writes a CPU profile of the
 * worker to .data/cpu-prof; BENCH_WEBHOOK_BATCH / BENCH_WEBHOOK_WORKERS override the worker's
 * batchSize / workers.
 */
import type { ChildProcess } from 'node:child_process';
import type { Knex } from 'knex';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { benchPostgres } from '../bench-database.js';
import { percentile, postgresCpuMs, processCpuMs } from '../measure.js';
import { CLI_ACTOR, type InvoiceEvent, newId } from '@gw/kernel';
import { BENCH_MASTER_KEY, createBenchKernel, FIXED_ETH_RATE } from '../bench-kernel.js';
import { minimalEnv, startTsxChild, stopChild } from '../child-process.js';
import { benchOptions } from '../bench-options.js';
import { signedEnvelope, postViaNodeHttp } from './signed-post.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const values = benchOptions({
  events: 20_000,
  rounds: 2,
  connections: 128,
  warmup: 1000,
  'steady-rate': 1000,
  'steady-seconds': 10,
  phases: 'drain,burst,steady',
});
const phases = new Set(values.phases.split(','));
const { events, rounds, connections, warmup } = values;
const steadyRate = values['steady-rate'];
const steadySeconds = values['steady-seconds'];

const postgres = await benchPostgres();
const withDatabase = postgres.withDatabase;

interface Stats {
  count: number;
  distinct: number;
  bad: number;
  firstAt: number;
  lastAt: number;
  latenciesMs: number[];
}

async function receiverCall(url: string, path: string, method = 'GET'): Promise<Stats> {
  const res = await fetch(`${url}${path}`, { method });
  return (await res.json()) as Stats;
}

async function waitForCount(url: string, n: number): Promise<Stats> {
  for (;;) {
    const stats = await receiverCall(url, '/stats');
    if (stats.count >= n) return stats;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** CPU milliseconds used so far by each PostgreSQL backend connected to the benchmark's database. */
async function databaseBackendsCpuMs(db: Knex): Promise<Map<number, number>> {
  const { rows } = await db.raw<{ rows: { pid: number }[] }>(`select pid from pg_stat_activity where datname = current_database()`);
  return new Map(rows.map((row) => [row.pid, processCpuMs(row.pid)]));
}

/**
 * Starts a CPU account of the worker, the receiver and PostgreSQL; the returned function prints it
 * and, given the events handled, the CPU per event. PostgreSQL is counted twice: all its processes
 * (the machine's, other databases included) and the backends of the benchmark's database alone
 * (those connected at the end; one that connected meanwhile counts whole).
 */
async function cpuAccount(label: string, worker: ChildProcess, receiver: ChildProcess, db: Knex): Promise<(events: number) => Promise<void>> {
  const backends = await databaseBackendsCpuMs(db);
  const before = { worker: processCpuMs(worker.pid!), receiver: processCpuMs(receiver.pid!), postgres: postgresCpuMs(), at: performance.now() };
  return async (events: number) => {
    const wall = (performance.now() - before.at) / 1000;
    const now = { worker: processCpuMs(worker.pid!), receiver: processCpuMs(receiver.pid!), postgres: postgresCpuMs() };
    let ours = 0;
    for (const [pid, cpu] of await databaseBackendsCpuMs(db)) ours += cpu - (backends.get(pid) ?? 0);
    const used = (ms: number) => `${(ms / 1000).toFixed(2)} s (${Math.round((ms / 1000 / wall) * 100)}%)`;
    const perEvent = (ms: number) => Math.round((ms * 1000) / events);
    const worked = now.worker - before.worker;
    const receiverMs = now.receiver - before.receiver;
    console.error(
      `  ${label} CPU over ${wall.toFixed(2)} s: worker ${used(worked)}, postgres ${used(now.postgres - before.postgres)} (this database ${used(ours)}), receiver ${used(receiverMs)}`,
    );
    console.error(
      `  ${label} CPU per event: worker ${perEvent(worked)} µs, postgres (this database) ${perEvent(ours)} µs, receiver ${perEvent(receiverMs)} µs, total ${perEvent(worked + ours + receiverMs)} µs`,
    );
  };
}

/** The baseline: build, sign and POST `n` envelopes over `connections` keep-alive loops. */
async function baseline(receiverUrl: string, secret: string, n: number): Promise<{ seconds: number; latencies: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const target = new URL('/hooks', receiverUrl);
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < n) {
        next += 1;
        const t0 = performance.now();
        const { body, signature } = signedEnvelope(secret);
        const status = await postViaNodeHttp(agent, target, body, { 'x-service-signature': signature });
        if (status !== 200) throw new Error(`HTTP ${status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  agent.destroy();
  return { seconds: (performance.now() - started) / 1000, latencies };
}

interface Row {
  side: string;
  round: number;
  events: number;
  perSecond: number;
  p50: number;
  p99: number;
  bad: number;
}
const rows: Row[] = [];

for (let round = 1; round <= rounds; round += 1) {
  await withDatabase(async (databaseUrl) => {
    // The gateway's side: set-up kernel (migrations, project) in this process; the worker app apart.
    const kernel = createBenchKernel(databaseUrl, { role: 'gateway', overrides: FIXED_ETH_RATE });
    await kernel.start();
    const operator = await kernel.cradle.tenancyOperators.create(`bench-${round}`, CLI_ACTOR);
    const { project, credentials } = await kernel.cradle.tenancyProjects.create({ name: 'bench', kind: 'testnet', operator: operator.id }, CLI_ACTOR);
    const secret = credentials.api_secret;
    const receiver = await startTsxChild(['bench/webhooks/receiver.ts'], /"url"/, { cwd: ROOT, env: { ...minimalEnv(), BENCH_SECRET: secret } });
    const receiverUrl = (JSON.parse(receiver.line) as { url: string }).url;
    await kernel.cradle.tenancyProjects.setWebhookUrl(project.id, `${receiverUrl}/hooks`, CLI_ACTOR);
    try {
      // Baseline first, then the gateway, against the same receiver in the same round.
      await baseline(receiverUrl, secret, warmup);
      await receiverCall(receiverUrl, '/reset', 'POST');
      const baseCpu = { self: process.cpuUsage(), receiver: processCpuMs(receiver.child.pid!), at: performance.now() };
      const base = await baseline(receiverUrl, secret, events);
      const baseWall = (performance.now() - baseCpu.at) / 1000;
      const selfCpu = process.cpuUsage(baseCpu.self);
      const baseUsed = (seconds: number) => `${seconds.toFixed(2)} s (${Math.round((seconds / baseWall) * 100)}%)`;
      const baseReceiverMs = processCpuMs(receiver.child.pid!) - baseCpu.receiver;
      console.error(
        `  baseline CPU over ${baseWall.toFixed(2)} s: sender ${baseUsed((selfCpu.user + selfCpu.system) / 1e6)}, receiver ${baseUsed(baseReceiverMs / 1000)}`,
      );
      console.error(
        `  baseline CPU per event: sender ${Math.round((selfCpu.user + selfCpu.system) / events)} µs, receiver ${Math.round((baseReceiverMs * 1000) / events)} µs`,
      );
      const baseStats = await receiverCall(receiverUrl, '/stats');
      const baseSorted = base.latencies.sort((a, b) => a - b);
      rows.push({
        side: 'baseline (request latency)',
        round,
        events,
        perSecond: events / base.seconds,
        p50: percentile(baseSorted, 50),
        p99: percentile(baseSorted, 99),
        bad: baseStats.bad,
      });
      console.error(`baseline round ${round}: ${Math.round(events / base.seconds)} events/s`);
      await receiverCall(receiverUrl, '/reset', 'POST');

      const workerEnv = {
        DATABASE_URL: databaseUrl,
        GW_MASTER_KEY: BENCH_MASTER_KEY,
        LOG_LEVEL: 'warn',
        GW__plugins__webhooks__allowPrivateTargets: 'true',
        GW__plugins__webhooks__maxSocketsPerHost: String(connections),
        GW__plugins__rates__providers: '["fixed"]',
        GW__plugins__rates__fixed: '{"ETH":"3000"}',
        // No watcher reaches a public provider (issue 40's defaults): the benchmark watches nothing.
        GW__plugins__watchers__publicProviders: 'false',
        ...(process.env['BENCH_WEBHOOK_BATCH'] ? { GW__plugins__webhooks__batchSize: process.env['BENCH_WEBHOOK_BATCH'] } : {}),
        ...(process.env['BENCH_WEBHOOK_WORKERS'] ? { GW__plugins__webhooks__workers: process.env['BENCH_WEBHOOK_WORKERS'] } : {}),
      };
      const startWorker = () =>
        startTsxChild(['apps/worker/src/main.ts'], /Worker started/, {
          cwd: ROOT,
          env: { ...minimalEnv(), ...workerEnv },
          profile: process.env['BENCH_CPU_PROF'] === 'worker',
        });
      const emit = async (n: number, batchSize = 200) => {
        const invoiceId = newId();
        for (let done = 0; done < n; done += batchSize) {
          const batch: InvoiceEvent[] = Array.from({ length: Math.min(batchSize, n - done) }, () => ({
            projectId: project.id,
            projectKind: 'testnet',
            invoiceId,
            eventType: 'invoice.paid',
            callbackUrl: null,
            data: { invoice_id: invoiceId, status: 'paid' },
          }));
          await kernel.cradle.db.transaction((trx) => kernel.cradle.invoiceEvents.emit(trx, batch));
        }
      };
      const gatewayRow = (side: string, stats: Stats, seconds: number) => {
        const sorted = stats.latenciesMs.sort((a, b) => a - b);
        rows.push({
          side,
          round,
          events: stats.count,
          perSecond: stats.count / seconds,
          p50: percentile(sorted, 50),
          p99: percentile(sorted, 99),
          bad: stats.bad,
        });
        console.error(`${side} round ${round}: ${Math.round(stats.count / seconds)} events/s (distinct ${stats.distinct})`);
      };

      // 1. Drain: the outbox holds `events` undelivered events (written while no worker ran);
      //    a worker starts and delivers them. Time from the worker's readiness to the last arrival.
      //    A warm-up batch first, through a worker of its own, so the drain's worker starts cold
      //    but the database and receiver do not.
      let worker = await startWorker();
      try {
        await emit(warmup);
        await waitForCount(receiverUrl, warmup);
        if (phases.has('drain')) {
          await stopChild(worker.child);
          await receiverCall(receiverUrl, '/reset', 'POST');
          await emit(events);
          worker = await startWorker();
          const ready = Date.now();
          const account = await cpuAccount('drain', worker.child, receiver.child, kernel.cradle.db);
          const drained = await waitForCount(receiverUrl, events);
          await account(drained.count);
          gatewayRow('gateway drain (outbox to delivered)', drained, (drained.lastAt - ready) / 1000);
        }

        // 2. Burst: `events` written as fast as this process can while the worker delivers them;
        //    the rate is bounded by the enqueueing, which shares the machine.
        if (phases.has('burst')) {
          await receiverCall(receiverUrl, '/reset', 'POST');
          const account = await cpuAccount('burst', worker.child, receiver.child, kernel.cradle.db);
          const started = Date.now();
          await emit(events);
          const enqueueSeconds = (Date.now() - started) / 1000;
          const burst = await waitForCount(receiverUrl, events);
          await account(burst.count);
          gatewayRow('gateway burst (enqueue while delivering)', burst, (burst.lastAt - started) / 1000);
          console.error(`  enqueueing alone took ${enqueueSeconds.toFixed(2)} s (${Math.round(events / enqueueSeconds)} events/s)`);
        }

        // 3. Steady load: `steadyRate` events/s for `steadySeconds`, in transactions of 20 every
        //    20th of a second; latency is enqueue (the envelope's created_at_iso) to arrival.
        if (phases.has('steady')) {
          await receiverCall(receiverUrl, '/reset', 'POST');
          const perTick = Math.max(1, Math.round(steadyRate / 20));
          const ticks = steadySeconds * 20;
          const steadyStart = Date.now();
          for (let tick = 0; tick < ticks; tick += 1) {
            await emit(perTick, perTick);
            const wait = steadyStart + ((tick + 1) * 1000) / 20 - Date.now();
            if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
          }
          const steady = await waitForCount(receiverUrl, perTick * ticks);
          gatewayRow(`gateway steady ${steadyRate}/s (latency)`, steady, (steady.lastAt - steadyStart) / 1000);
        }
      } finally {
        await stopChild(worker.child);
      }
    } finally {
      await stopChild(receiver.child);
      await kernel.stop();
    }
  });
}
await postgres.stop();

console.log(`\nwebhook deliveries, ${events} events per side and round, ${connections} connections, node ${process.version}\n`);
console.log('| side | round | events | events/s | p50 ms | p99 ms | bad signatures |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const r of rows)
  console.log(`| ${r.side} | ${r.round} | ${r.events} | ${Math.round(r.perSecond)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.bad} |`);
const mean = (side: string) => {
  const of = rows.filter((r) => r.side.startsWith(side));
  return of.reduce((sum, r) => sum + r.perSecond, 0) / of.length;
};
console.log('');
if (phases.has('drain'))
  console.log(`gateway drain / baseline throughput: ${(mean('gateway drain') / mean('baseline')).toFixed(2)} (means over ${rounds} rounds)`);
if (phases.has('burst'))
  console.log(`gateway burst / baseline throughput: ${(mean('gateway burst') / mean('baseline')).toFixed(2)} (bounded by the enqueueing)`);

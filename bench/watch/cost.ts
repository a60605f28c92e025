/**
 * Benchmark: the cost of watching. One worker process (the real app, `apps/worker`) watches the
 * first testnet of five chains and the mainnet of two (ada, ton: the test keys are mainnet keys) at their real block rates for a fixed time, and the bench
 * reports its CPU, memory, provider requests per block and PostgreSQL statements per block.
 *
 * The networks and what stands in for each chain's provider:
 * - eth/sepolia, polygon/amoy, bsc/bsc-testnet: three anvil nodes with those chain ids, mining a
 *   block every 12 s, 2 s and 0.75 s (`--block-time`), empty blocks;
 * - btc/regtest: a bcoin regtest node (`bitcoin-core` provider; config `chains.testNetworks` makes
 *   testnet projects use regtest), mining a block every 600 s (so a short run may see none: its
 *   cost is then the polls, tip and mempool, alone);
 * - ton/ton: the toncenter-shaped server backed by `@ton/sandbox` (chains/ton/test), an
 *   empty masterchain block every 5 s;
 * - tron/shasta and ada/cardano: advancing replays of recorded real blocks (replay-chains.ts), a
 *   block every 3 s and 20 s; no TRON or Cardano node runs here.
 * A testnet project (btc, eth, polygon, bsc, tron) and a production one (ada, ton) have verified
 * wallets and address pools (the watched addresses);
 * no payments are made: this is the idle cost of following the chains. Scan intervals are the
 * defaults (each chain's block time, 1 to 30 s), no push.
 *
 * Measured over the window after a warm-up: CPU time of the worker process (user + system, from
 * /proc), its resident memory (sampled every second), HTTP requests to each provider (counted by
 * a relay in front of each; a JSON-RPC batch is one request, its calls are counted too), blocks
 * scanned per network (the cursors' progress), and statements the worker sent to PostgreSQL
 * (counted in node-postgres's `Client.query` inside the worker, count-statements.mjs) and the
 * database's transactions (`pg_stat_database`).
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx -y pnpm@10.34.9 exec tsx bench/watch/cost.ts [--seconds 120] [--warmup 20]
 */
import { readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { ChainId } from '@gw/kernel';
import { startBenchTestKernel } from '../bench-kernel.js';
import { listenOnLoopback } from '../loopback-server.js';
import { CLI_ACTOR } from '@gw/kernel';
import { Anvil, projectWithPools, Bcoin, startApp, type AppProcess } from '@gw/testing';
import { benchPostgres } from '../bench-database.js';
import { benchOptions } from '../bench-options.js';
import { ToncenterSandbox } from '@gw/chain-ton/testing';
import { adaReplay, tronReplay } from './replay-chains.js';

const { seconds, warmup } = benchOptions({ seconds: 120, warmup: 20 });

/** A relay in front of a provider that counts HTTP requests and the JSON-RPC calls in them. */
interface Counter {
  readonly url: string;
  requests: number;
  calls: number;
  close(): Promise<void>;
}

async function counting(target: string): Promise<Counter> {
  const counter = { requests: 0, calls: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      counter.requests += 1;
      if (body.length > 0 && body[0] === 0x5b) {
        try {
          counter.calls += (JSON.parse(body.toString('utf8')) as unknown[]).length;
        } catch {
          counter.calls += 1;
        }
      } else counter.calls += 1;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers))
        if (typeof value === 'string' && name !== 'host' && name !== 'content-length') headers[name] = value;
      fetch(target + (req.url === '/' ? '' : (req.url ?? '')), { method: req.method ?? 'GET', headers, ...(body.length > 0 ? { body } : {}) }).then(
        async (answer) => {
          const text = Buffer.from(await answer.arrayBuffer());
          res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(text);
        },
        () => res.writeHead(502).end(),
      );
    });
  });
  return Object.assign(counter, await listenOnLoopback(server));
}

/** user + system CPU seconds and resident memory (bytes) of a process, from /proc. */
function usage(pid: number): { cpu: number; rss: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
  return { cpu: ticks / 100, rss };
}

const postgres = await benchPostgres();
const stops: (() => Promise<unknown>)[] = [];
const timers: NodeJS.Timeout[] = [];
let worker: AppProcess | undefined;
const dir = mkdtempSync(join(tmpdir(), 'gw-cost-'));
try {
  const eth = await Anvil.start(11155111, { blockTimeSeconds: 12 });
  stops.push(() => eth.stop());
  const polygon = await Anvil.start(80002, { blockTimeSeconds: 2 });
  stops.push(() => polygon.stop());
  const bsc = await Anvil.start(97, { blockTimeSeconds: 0.75 });
  stops.push(() => bsc.stop());
  const bcoin = await Bcoin.start();
  stops.push(() => bcoin.stop());
  await bcoin.mine(101);
  timers.push(setInterval(() => void bcoin.mine(1).catch(() => undefined), 600_000));
  const ton = await ToncenterSandbox.create(1000, Math.floor(Date.now() / 1000));
  await ton.listen();
  stops.push(() => ton.close());
  timers.push(setInterval(() => void ton.commit().catch(() => undefined), 5000));
  const tron = await tronReplay(3000);
  stops.push(() => tron.close());
  const ada = await adaReplay(20_000);
  stops.push(() => ada.close());

  const networks: { chain: ChainId; network: string; target: string; extra?: Record<string, unknown>; blockSeconds: number }[] = [
    { chain: 'eth', network: 'sepolia', target: eth.url, blockSeconds: 12 },
    { chain: 'polygon', network: 'amoy', target: polygon.url, blockSeconds: 2 },
    { chain: 'bsc', network: 'bsc-testnet', target: bsc.url, blockSeconds: 0.75 },
    { chain: 'btc', network: 'regtest', target: bcoin.url, extra: { kind: 'bitcoin-core', password: bcoin.apiKey }, blockSeconds: 600 },
    { chain: 'ton', network: 'ton', target: ton.url, blockSeconds: 5 },
    { chain: 'tron', network: 'shasta', target: tron.url, blockSeconds: 3 },
    { chain: 'ada', network: 'cardano', target: ada.url, blockSeconds: 20 },
  ];
  const counters = new Map<string, Counter>();
  for (const n of networks) {
    const counter = await counting(n.target);
    stops.push(() => counter.close());
    counters.set(n.chain, counter);
  }
  const watchersChains = Object.fromEntries(
    networks.map((n) => [n.chain, { [n.network]: { providers: [{ name: 'bench', url: counters.get(n.chain)!.url, ...n.extra }] } }]),
  );

  await postgres.withDatabase(async (url) => {
    const testNetworks = { btc: 'regtest' };
    const rates = { ETH: '3000', POL: '0.5', BNB: '600', BTC: '60000', TON: '5', TRX: '0.2', ADA: '0.5', USDT: '1', USDC: '1' };
    // The schema, a testnet project and its pools, made in-process; the worker then runs alone.
    const setup = await startBenchTestKernel(url, 'cli', {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': rates,
      'chains.testNetworks': testNetworks,
    });
    try {
      const operatorId = (await setup.kernel.cradle.tenancyOperators.create('bench-cost', CLI_ACTOR)).id;
      // The test keys of ada and ton are mainnet keys: their pools belong to a production project.
      await projectWithPools(setup, operatorId, ['btc', 'eth', 'polygon', 'bsc', 'tron'], 'testnet');
      await projectWithPools(setup, operatorId, ['ada', 'ton'], 'production');
    } finally {
      await setup.close();
    }
    const statementsFile = join(dir, 'statements');
    worker = startApp('worker', {
      DATABASE_URL: url,
      GW_MASTER_KEY: '0f'.repeat(32),
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: `--import ${new URL('./count-statements.mjs', import.meta.url).pathname}`,
      GW_BENCH_STATEMENTS_FILE: statementsFile,
      GW__plugins__rates__providers: '["fixed"]',
      GW__plugins__rates__fixed: JSON.stringify(rates),
      GW__plugins__watchers__chains: JSON.stringify(watchersChains),
      GW__chains__testNetworks: JSON.stringify(testNetworks),
    });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const cursors = async () =>
        new Map(
          ((await db.query('select chain, height from watchers_cursors')).rows as { chain: string; height: string }[]).map((r) => [r.chain, Number(r.height)]),
        );
      const transactions = async () =>
        Number((await db.query('select xact_commit + xact_rollback as n from pg_stat_database where datname = current_database()')).rows[0].n);
      const statements = () => {
        try {
          return Number(readFileSync(statementsFile, 'utf8'));
        } catch {
          return 0;
        }
      };
      await new Promise((resolve) => setTimeout(resolve, warmup * 1000));
      if (worker.child.exitCode !== null) throw new Error(`the worker exited:\n${worker.output()}`);
      const pid = worker.child.pid!;
      const start = {
        usage: usage(pid),
        cursors: await cursors(),
        transactions: await transactions(),
        statements: statements(),
        counters: new Map([...counters].map(([c, n]) => [c, { ...n }])),
        at: Date.now(),
      };
      const rss: number[] = [];
      for (let i = 0; i < seconds; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 1000));
        rss.push(usage(pid).rss);
      }
      const end = { usage: usage(pid), cursors: await cursors(), transactions: await transactions(), statements: statements(), at: Date.now() };
      const elapsed = (end.at - start.at) / 1000;
      const blocks = networks.map((n) =>
        start.cursors.has(n.chain) && end.cursors.has(n.chain) ? end.cursors.get(n.chain)! - start.cursors.get(n.chain)! : 0,
      );
      const failing = (await db.query('select chain, consecutive_failures, last_error from watchers_cursors where consecutive_failures > 0')).rows as {
        chain: string;
        consecutive_failures: number;
        last_error: string;
      }[];
      for (const row of failing) console.error(`${row.chain}: ${row.consecutive_failures} failed passes in a row, last: ${row.last_error}`);
      const totalBlocks = blocks.reduce((a, b) => a + b, 0);
      const statementsRun = end.statements - start.statements;
      const transactionsRun = end.transactions - start.transactions - 2; // the two reads of pg_stat_database

      console.log(
        `\ncost of watching: one worker, seven chains at their block rates, ${elapsed.toFixed(0)} s after ${warmup} s warm-up; node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}\n`,
      );
      console.log(
        `CPU: ${(end.usage.cpu - start.usage.cpu).toFixed(1)} s over ${elapsed.toFixed(0)} s = ${((100 * (end.usage.cpu - start.usage.cpu)) / elapsed).toFixed(1)} % of one core`,
      );
      console.log(
        `RSS: ${(Math.min(...rss) / 2 ** 20).toFixed(0)} to ${(Math.max(...rss) / 2 ** 20).toFixed(0)} MiB (mean ${(rss.reduce((a, b) => a + b, 0) / rss.length / 2 ** 20).toFixed(0)})`,
      );
      console.log(
        `PostgreSQL: ${statementsRun} statements (${(statementsRun / elapsed).toFixed(1)}/s), ${transactionsRun} transactions (${(transactionsRun / elapsed).toFixed(1)}/s); ${totalBlocks} blocks in all: ${(statementsRun / Math.max(1, totalBlocks)).toFixed(1)} statements per block\n`,
      );
      console.log('| chain/network | block time | blocks scanned | HTTP requests | JSON-RPC calls | requests per block | requests per minute |');
      console.log('| --- | --- | --- | --- | --- | --- | --- |');
      networks.forEach((n, i) => {
        const before = start.counters.get(n.chain)!;
        const after = counters.get(n.chain)!;
        const requests = after.requests - before.requests;
        const calls = after.calls - before.calls;
        const perBlock = blocks[i]! > 0 ? (requests / blocks[i]!).toFixed(1) : '–';
        console.log(
          `| ${n.chain}/${n.network} | ${n.blockSeconds} s | ${blocks[i]} | ${requests} | ${['eth', 'polygon', 'bsc', 'btc'].includes(n.chain) ? calls : '–'} | ${perBlock} | ${((requests / elapsed) * 60).toFixed(0)} |`,
        );
      });
    } finally {
      await db.end();
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  });
} finally {
  for (const timer of timers) clearInterval(timer);
  if (worker && worker.child.exitCode === null) worker.child.kill('SIGKILL');
  for (const stop of stops.reverse()) await stop().catch(() => undefined);
  await postgres.stop();
  rmSync(dir, { recursive: true, force: true });
}

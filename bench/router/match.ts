/**
 * Benchmark: the cost of finding a request's route among the gateway's routes, koa-router's test
 * of every layer against the kernel's route index (kernel/src/http/route-index.ts), alternating
 * rounds in one process. The paths are the calls of the other benchmarks and of a partner's day
 * (a create, an invoice read, the health check, a dashboard page, a BTCPay call, an unknown path),
 * then a 16 kB path of 8,000 segments.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/router/match.ts [--rounds 5] [--matches 200000]
 * PostgreSQL: DATABASE_URL (an admin URL) or an embedded server (the gateway starts to list its routes).
 */
import { matchBothWays, routeMatchers } from '@gw/kernel/testing';
import { benchPostgres } from '../bench-database.js';
import { startBenchTestKernel } from '../bench-kernel.js';
import { benchOptions } from '../bench-options.js';

const { rounds, matches } = benchOptions({ rounds: 5, matches: 200_000 });

const REQUESTS: [string, string][] = [
  ['POST', '/api/v1/invoices'],
  ['GET', '/api/v1/invoices/01JD0000000000000000000000'],
  ['GET', '/healthz'],
  ['GET', '/dashboard/invoices'],
  ['GET', '/btcpay/api/v1/stores/01JD0000000000000000000000/invoices'],
  ['GET', '/no/such/path'],
];

const postgres = await benchPostgres();
const routes = await postgres.withDatabase(async (url) => {
  const gw = await startBenchTestKernel(url, 'gateway', {});
  try {
    return [...gw.kernel.routes];
  } finally {
    await gw.close();
  }
});
await postgres.stop();

const matchers = routeMatchers(routes);
for (const [method, path] of REQUESTS) {
  const { indexed, tested } = matchBothWays(matchers, path, method);
  if (JSON.stringify(indexed) !== JSON.stringify(tested)) throw new Error(`the two ways disagree on ${method} ${path}`);
}

function time(match: (path: string, method: string) => { route: boolean }): number {
  let routed = 0;
  const started = process.hrtime.bigint();
  for (let n = 0; n < matches; n += 1) {
    const [method, path] = REQUESTS[n % REQUESTS.length]!;
    if (match(path, method).route) routed += 1;
  }
  const ns = Number(process.hrtime.bigint() - started);
  if (routed === 0) throw new Error('no request was routed');
  return ns / matches;
}

// Warm-up of both, then alternating rounds.
time(matchers.tested);
time(matchers.indexed);
const results: { side: string; round: number; ns: number }[] = [];
for (let round = 1; round <= rounds; round += 1) {
  results.push({ side: 'every layer', round, ns: time(matchers.tested) });
  results.push({ side: 'index', round, ns: time(matchers.indexed) });
}
console.log(`route matching over ${routes.length} routes, ${matches} matches per round, node ${process.version}`);
console.log('| side | round | ns per match |');
console.log('| --- | --- | --- |');
for (const { side, round, ns } of results) console.log(`| ${side} | ${round} | ${Math.round(ns)} |`);
const median = (side: string) => {
  const sorted = results
    .filter((r) => r.side === side)
    .map((r) => r.ns)
    .sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
console.log(`median: every layer ${Math.round(median('every layer'))} ns, index ${Math.round(median('index'))} ns per match`);

// A 16 kB path of 8,000 segments (an unauthenticated client may send one): the index reads no
// more segments than its longest prefix has.
const long = '/a'.repeat(8_000);
const longMatch = (match: (path: string, method: string) => unknown) => {
  const started = process.hrtime.bigint();
  for (let n = 0; n < 100; n += 1) match(long, 'GET');
  return Number(process.hrtime.bigint() - started) / 100;
};
longMatch(matchers.tested);
longMatch(matchers.indexed);
console.log(
  `a 16 kB path of 8,000 segments: every layer ${Math.round(longMatch(matchers.tested))} ns, index ${Math.round(longMatch(matchers.indexed))} ns per match`,
);

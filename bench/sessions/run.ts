/**
 * Benchmark (issue 38): checkout sessions on one gateway instance.
 *
 * A fresh database; the gateway (bench/checkout/server.ts: the real kernel, role `gateway`, the
 * composition's plugins, sessions included) in its own process; this process is a second instance
 * that provisions a sandbox project and creates `--sessions` EUR-priced sessions (ETH allowed).
 * 1. Opening and picking under load: `--concurrency` payers at once, each opens a session's page
 *    (GET `/pay/{token}`, which sets the form cookie) and picks ETH (POST `/pay/{token}/coin`: the
 *    session's row locked, an ETH invoice created, its address allocated from the pool, 303 to the
 *    invoice's checkout page). p50 / p99 / max of each request, and the picks per second.
 * 2. Idle cost of open pages: `--pages` status streams (what the checkout page's script opens) on the
 *    sessions' invoices, the gateway's CPU over `--idle-seconds`; then the same number of streams on
 *    plain invoices (no session) in the same run, for the baseline.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/sessions/run.ts [--sessions 1000] [--concurrency 20] [--pages 1000] [--idle-seconds 30]
 * PostgreSQL: DATABASE_URL (an admin URL; a fresh database) or an embedded server under .data/postgres-bench.
 */
import { request } from 'node:http';
import { CLI_ACTOR } from '@gw/kernel';
import { percentile, processCpuMs } from '../measure.js';
import { benchOptions } from '../bench-options.js';
import { withGatewayAndWriter } from '../checkout/gateway-and-writer.js';
import { idleCpu, openStatusStreams, type StatusStream } from '../checkout/status-streams.js';
import { SESSIONS_BENCH_OVERRIDES } from './config.js';

const options = benchOptions({ sessions: 1000, concurrency: 20, pages: 1000, 'idle-seconds': 30 });

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function http(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** One payer: opens the session's page, then picks ETH with the page's form token. Returns both times (ms) and the checkout page's path. */
async function payer(base: string, pageUrl: string): Promise<{ openMs: number; pickMs: number; checkout: string }> {
  const path = new URL(pageUrl).pathname;
  const openStart = performance.now();
  const page = await http(`${base}${path}`, { headers: { 'Accept-Language': 'de' } });
  const openMs = performance.now() - openStart;
  if (page.status !== 200) throw new Error(`GET ${path}: ${page.status}`);
  const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1];
  const cookies = ([] as string[]).concat(page.headers['set-cookie'] ?? []).map((c) => c.split(';')[0]!);
  if (!csrf || cookies.length === 0) throw new Error(`GET ${path}: no form token`);
  const pickStart = performance.now();
  const pick = await http(`${base}${path}/coin`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookies.join('; '), 'Accept-Language': 'de' },
    body: new URLSearchParams({ csrf, coin: 'eth' }).toString(),
  });
  const pickMs = performance.now() - pickStart;
  const location = String(pick.headers.location ?? '');
  if (pick.status !== 303 || !location.includes('/checkout/')) throw new Error(`POST ${path}/coin: ${pick.status} ${location}`);
  return { openMs, pickMs, checkout: new URL(location, base).pathname };
}

const summary = (values: number[]) => {
  values.sort((a, b) => a - b);
  return `p50 ${percentile(values, 50).toFixed(1)} ms, p99 ${percentile(values, 99).toFixed(1)} ms, max ${values.at(-1)!.toFixed(1)} ms`;
};

await withGatewayAndWriter(new URL('./server.ts', import.meta.url), SESSIONS_BENCH_OVERRIDES, async (writer, server) => {
  const { sandboxProjects, tenancyProjects, invoicesService, sessionsCheckout } = writer.cradle;
  const sandbox = await sandboxProjects.provision({ name: `bench-sessions-${Date.now()}` }, CLI_ACTOR);
  const project = { id: sandbox.project.id, kind: 'sandbox' as const };
  const urls: string[] = [];
  for (let i = 0; i < options.sessions; i += 1) {
    const { session } = await sessionsCheckout.create(
      project,
      { price_currency: 'EUR', price_amount: '19.90', allowed_coins: ['eth'], description: `Bench order ${i}` },
      CLI_ACTOR,
    );
    urls.push(session.url);
  }

  const opens: number[] = [];
  const picks: number[] = [];
  const checkoutPaths: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        const timing = await payer(server.url, url);
        opens.push(timing.openMs);
        picks.push(timing.pickMs);
        checkoutPaths.push(timing.checkout);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`${urls.length} payers, ${options.concurrency} at a time, in ${seconds.toFixed(1)} s (${(urls.length / seconds).toFixed(0)} picks/s)`);
  console.log(`open the session's page (GET /pay/{token}): ${summary(opens)}`);
  console.log(`pick a coin (POST /pay/{token}/coin: lock, invoice, address): ${summary(picks)}`);

  const idle = async (label: string, paths: readonly string[]) => {
    const streams: StatusStream[] = Array.from({ length: options.pages }, (_, i) => ({ invoiceId: paths[i % paths.length]!, arrivals: new Map() }));
    const opened = await openStatusStreams(streams, (_, i) => `${server.url}${paths[i % paths.length]}/events`);
    const cpu = await idleCpu(server.child.pid!, options['idle-seconds'], processCpuMs);
    console.log(
      `${label}: ${streams.length} open pages (opened in ${opened.toFixed(1)} s), idle ${(cpu.wallMs / 1000).toFixed(1)} s: gateway ${cpu.cpuMs} ms CPU = ${(cpu.share * 100).toFixed(2)}% of one core`,
    );
    for (const stream of streams) stream.response?.destroy();
    await new Promise((resolve) => setTimeout(resolve, 2000));
  };
  await idle('session invoices', checkoutPaths);

  const principal = (await tenancyProjects.principal(project.id))!;
  const plain: string[] = [];
  for (let i = 0; i < Math.min(options.pages, 100); i += 1) {
    const { invoice } = await invoicesService.create(principal, { external_id: `plain-${i}`, coin: 'eth', amount_crypto: '0.01' }, CLI_ACTOR);
    plain.push(new URL(invoice.checkout_url).pathname);
  }
  await idle('plain invoices (baseline)', plain);
});

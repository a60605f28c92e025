/**
 * Benchmark: many open checkout pages following their invoices' status on one gateway instance.
 *
 * A fresh database; the gateway (bench/checkout/server.ts, the real kernel with the composition's
 * plugins) in its own process; this process is a second instance (a writer kernel on the same
 * database) that provisions a sandbox project, creates `--invoices` invoices and later changes
 * them with the sandbox's simulations, so every change reaches the pages through PostgreSQL
 * LISTEN/NOTIFY as it would from any other instance. `--pages` status streams (server-sent events,
 * what the page's script opens) are spread evenly over the invoices. Two figures:
 * 1. idle CPU: the gateway process's CPU time (from /proc) over `--idle-seconds` with every page
 *    open and nothing changing (heartbeats included), as a share of one core; PostgreSQL's beside it;
 * 2. fan-out latency: `--changes` invoices are moved pending → detected one after another; for each
 *    page, the time from the simulation's commit (the call's return; its start, for an upper bound)
 *    to the page's `detected` event. p50 / p99 / max over all pages.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/checkout/run.ts [--pages 1000] [--invoices 100] [--idle-seconds 30] [--changes 20]
 * PostgreSQL: DATABASE_URL (an admin URL; a fresh database) or an embedded server under .data/postgres-bench.
 */
import { CLI_ACTOR } from '@gw/kernel';
import { percentile, postgresCpuMs, processCpuMs } from '../measure.js';
import { benchOptions } from '../bench-options.js';
import { withGatewayAndWriter } from './gateway-and-writer.js';
import { CHECKOUT_BENCH_OVERRIDES } from './config.js';
import { idleCpu, openStatusStreams, type StatusStream } from './status-streams.js';

const options = benchOptions({ pages: 1000, invoices: 100, 'idle-seconds': 30, changes: 20 });
const pageCount = options.pages;
const invoiceCount = options.invoices;
const idleSeconds = options['idle-seconds'];
const changes = Math.min(options.changes, invoiceCount);

await withGatewayAndWriter(new URL('./server.ts', import.meta.url), CHECKOUT_BENCH_OVERRIDES, async (writer, server) => {
  const { sandboxProjects, tenancyProjects, invoicesService, sandboxSimulator } = writer.cradle;
  const sandbox = await sandboxProjects.provision({ name: `bench-checkout-${Date.now()}` }, CLI_ACTOR);
  const principal = (await tenancyProjects.principal(sandbox.project.id))!;
  const invoices: { id: string; path: string }[] = [];
  for (let i = 0; i < invoiceCount; i += 1) {
    const { invoice } = await invoicesService.create(principal, { external_id: `bench-${i}`, coin: 'eth', amount_crypto: '0.1' }, CLI_ACTOR);
    invoices.push({ id: invoice.id, path: new URL(invoice.checkout_url).pathname });
  }
  const pages: StatusStream[] = Array.from({ length: pageCount }, (_, i) => ({ invoiceId: invoices[i % invoiceCount]!.id, arrivals: new Map() }));
  const opened = await openStatusStreams(pages, (_, i) => `${server.url}${invoices[i % invoiceCount]!.path}/events`);
  console.log(`opened ${pages.length} status streams over ${invoiceCount} invoices in ${opened.toFixed(1)} s`);

  const pgBefore = postgresCpuMs();
  const idle = await idleCpu(server.child.pid!, idleSeconds, processCpuMs);
  const pgCpu = postgresCpuMs() - pgBefore;
  console.log(
    `idle ${(idle.wallMs / 1000).toFixed(1)} s with ${pages.length} pages open: gateway ${idle.cpuMs} ms CPU = ${(idle.share * 100).toFixed(2)}% of one core; every PostgreSQL process on the machine (shared with whatever else runs) ${pgCpu} ms (${((pgCpu / idle.wallMs) * 100).toFixed(2)}%)`,
  );

  const fromCommit: number[] = [];
  const fromStart: number[] = [];
  for (let i = 0; i < changes; i += 1) {
    const invoice = invoices[i]!;
    const watching = pages.filter((p) => p.invoiceId === invoice.id);
    const started = performance.now();
    await sandboxSimulator.simulate(sandbox.project.id, invoice.id, 'detect', {}, CLI_ACTOR);
    const committed = performance.now();
    const deadline = committed + 10_000;
    while (watching.some((p) => !p.arrivals.has('detected')) && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
    const missing = watching.filter((p) => !p.arrivals.has('detected')).length;
    if (missing > 0) throw new Error(`${missing} pages of invoice ${invoice.id} never saw "detected"`);
    for (const p of watching) {
      fromCommit.push(p.arrivals.get('detected')! - committed);
      fromStart.push(p.arrivals.get('detected')! - started);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  fromCommit.sort((a, b) => a - b);
  fromStart.sort((a, b) => a - b);
  const ms = (v: number) => `${Math.max(0, v).toFixed(1)} ms`;
  console.log(
    `fan-out: ${changes} changes reaching ${fromCommit.length} pages (${pageCount / invoiceCount} per invoice): from commit p50 ${ms(percentile(fromCommit, 50))}, p99 ${ms(percentile(fromCommit, 99))}, max ${ms(fromCommit.at(-1)!)}; ` +
      `from the simulation's start p99 ${ms(percentile(fromStart, 99))}, max ${ms(fromStart.at(-1)!)}`,
  );
  for (const p of pages) p.response?.destroy();
});

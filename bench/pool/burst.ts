/**
 * Benchmark: a burst of invoice creates on a wallet verified a moment before (issue 24, item 3).
 *
 * Set-up: a gateway kernel with workers (role `all`: the replenish job runs as in production), a
 * production project whose eth wallet is registered and verified just before the burst, its pool
 * left as verification leaves it. Measured: `--creates` signed `POST /api/v1/invoices` (default
 * 1,000) spread evenly over `--seconds` (default 10), each fired on schedule without waiting for
 * the others. Reported: answers by status, distinct addresses among the created invoices,
 * invoices on a shared address, latency percentiles, and the pool afterwards.
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npx -y pnpm@10.34.9 exec tsx bench/pool/burst.ts [--creates 1000] [--seconds 10]
 */
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch } from '@gw/kernel/testing';
import { FIXED_ETH_RATE, startBenchTestKernel } from '../bench-kernel.js';
import { benchPostgres } from '../bench-database.js';
import { percentile } from '../measure.js';
import { benchOptions } from '../bench-options.js';
import { projectWithPools } from '@gw/testing';

const { creates, seconds } = benchOptions({ creates: 1000, seconds: 10 });

const postgres = await benchPostgres();
try {
  await postgres.withDatabase(async (url) => {
    const gw = await startBenchTestKernel(url, 'all', {
      ...FIXED_ETH_RATE,
      'plugins.invoices.createRateLimitPerMinute': 1_000_000,
    });
    try {
      const operatorId = (await gw.kernel.cradle.tenancyOperators.create('bench-burst', CLI_ACTOR)).id;
      const project = await projectWithPools(gw, operatorId, ['eth'], 'production', { replenish: false });
      const started = performance.now();
      const answers = await Promise.all(
        Array.from({ length: creates }, async (_, i) => {
          const due = started + (i * seconds * 1000) / creates;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
          const sent = performance.now();
          const res = await signedFetch(gw.url, '/api/v1/invoices', {
            ...project,
            method: 'POST',
            body: { external_id: `burst-${i}`, coin: 'eth', amount_crypto: '0.01' },
          });
          return {
            status: res.status,
            address: res.body.address as string | undefined,
            shared: res.body.address_shared as boolean | undefined,
            ms: performance.now() - sent,
          };
        }),
      );
      const elapsed = (performance.now() - started) / 1000;
      const byStatus = new Map<number, number>();
      for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
      const created = answers.filter((a) => a.status === 201);
      const latencies = answers.map((a) => a.ms).sort((a, b) => a - b);
      const pool = await gw.kernel.cradle.addressPoolStatus.status({ projectId: project.projectId, chain: 'eth' });
      console.log(
        `\ninvoice create burst on a wallet verified just before, node ${process.version}: ${creates} creates over ${seconds} s (took ${elapsed.toFixed(1)} s)\n`,
      );
      console.log('| figure | value |');
      console.log('| --- | --- |');
      console.log(`| answers by status | ${[...byStatus].map(([status, n]) => `${status}: ${n}`).join(', ')} |`);
      console.log(`| distinct addresses among ${created.length} invoices | ${new Set(created.map((a) => a.address)).size} |`);
      console.log(`| invoices on a shared address | ${created.filter((a) => a.shared).length} |`);
      console.log(
        `| latency p50 / p99 / max (ms) | ${percentile(latencies, 50).toFixed(0)} / ${percentile(latencies, 99).toFixed(0)} / ${latencies.at(-1)!.toFixed(0)} |`,
      );
      console.log(`| pool afterwards (total / allocated / available) | ${pool[0]!.total} / ${pool[0]!.allocated} / ${pool[0]!.available} |`);
    } finally {
      await gw.close();
    }
  });
} finally {
  await postgres.stop();
}

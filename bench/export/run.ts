/**
 * Benchmark: `gateway invoice export` memory and speed over a large range (issue 23). Fills a fresh
 * database with N invoices of one project (clones of one real invoice, each with one confirmed
 * transaction), then streams them through the exporter as CSV into a sink that drops the bytes,
 * sampling this process's RSS and heap every 10,000 invoices. Constant memory shows as an RSS peak
 * that does not grow with N.
 *
 * Run: npx -y pnpm@10.34.9 exec tsx bench/export/run.ts [--invoices 1000000] [--format csv|json]
 * PostgreSQL: DATABASE_URL (an admin URL; a fresh database, dropped afterwards) or an embedded server.
 */
import { Writable } from 'node:stream';
import { once } from 'node:events';
import { csvLines } from '@gw/plugin-invoices';
import { benchPostgres } from '../bench-database.js';
import { createBenchKernel, ethProjectWithSeedInvoice, FIXED_ETH_RATE } from '../bench-kernel.js';
import { benchOptions } from '../bench-options.js';

const values = benchOptions({ invoices: 1_000_000, format: 'csv' });
const total = values.invoices;
const postgres = await benchPostgres();
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

await postgres.withDatabase(async (url) => {
  const kernel = createBenchKernel(url, { role: 'cli', overrides: FIXED_ETH_RATE });
  await kernel.start();
  try {
    const { db } = kernel.cradle;
    const { project, seed } = await ethProjectWithSeedInvoice(kernel, 'export-bench');

    let started = Date.now();
    for (let from = 1; from <= total; from += 250_000) {
      const to = Math.min(total, from + 249_999);
      // Copies of the seed invoice: every column as the seed has it, except those given here.
      await db.raw(
        `insert into invoices_invoices
         select copy.* from invoices_invoices i cross join generate_series(?::int, ?::int) g
           cross join lateral jsonb_populate_record(i, jsonb_build_object(
             'id', '01' || lpad(g::text, 24, '0'),
             'external_id', 'bulk-' || g,
             'payment_token', 'f' || lpad(to_hex(g), 15, '0'),
             'checkout_token', 'bulk-checkout-' || g,
             'created_at', i.created_at + make_interval(secs => g / 1000.0),
             'status', 'paid',
             'paid_at', now(),
             'paid_usd_rate', 3000,
             'paid_rate_source', 'fixed')) copy
          where i.id = ?`,
        [from, to, seed.id],
      );
      await db.raw(
        `insert into invoices_transactions (id, invoice_id, project_id, chain, coin, tx_hash, output_index, to_address, amount_units, block_height, confirmations, status, synthetic, detected_at, confirmed_at)
         select '02' || substr(i.id, 3), i.id, i.project_id, i.chain, i.coin, '0x' || md5(i.id) || md5(i.external_id), 0, i.address, i.amount_units, 1, 12, 'confirmed', false, i.created_at, i.created_at
           from invoices_invoices i where i.id between ? and ?`,
        [`01${String(from).padStart(24, '0')}`, `01${String(to).padStart(24, '0')}`],
      );
    }
    await db.raw('analyze invoices_invoices; analyze invoices_transactions');
    console.log(`filled ${total} invoices (+1 seed) with one transaction each in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    global.gc?.();
    const baseline = process.memoryUsage();
    let bytes = 0;
    const sink = new Writable({
      highWaterMark: 1 << 16,
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        setImmediate(done);
      },
    });
    const write = async (text: string) => {
      if (!sink.write(text)) await once(sink, 'drain');
    };
    let count = 0;
    let peakRss = baseline.rss;
    let peakHeap = baseline.heapUsed;
    const samples: string[] = [];
    started = Date.now();
    for await (const invoice of kernel.cradle.invoicesExporter.invoices({ projectId: project.id, from: new Date(0), to: new Date('2999-01-01') })) {
      await write(values.format === 'csv' ? `${csvLines(invoice).join('\r\n')}\r\n` : `${JSON.stringify(invoice)},\n`);
      count += 1;
      if (count % 10_000 === 0) {
        const m = process.memoryUsage();
        peakRss = Math.max(peakRss, m.rss);
        peakHeap = Math.max(peakHeap, m.heapUsed);
        if (count % (total >= 500_000 ? 200_000 : 20_000) === 0) samples.push(`${count}: rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)} MB`);
      }
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(samples.join('\n'));
    console.log(
      `exported ${count} invoices (${mb(bytes)} MB of ${values.format}) in ${seconds.toFixed(1)} s, ${Math.round(count / seconds)} invoices/s; ` +
        `RSS before ${mb(baseline.rss)} MB, peak ${mb(peakRss)} MB; heap before ${mb(baseline.heapUsed)} MB, peak ${mb(peakHeap)} MB`,
    );
  } finally {
    await kernel.stop();
  }
});
await postgres.stop();

/**
 * Benchmark: the treasury's reconciliation of `--addresses` pool addresses (default 10,000), each
 * holding one confirmed unspent btc output, against a local HTTP server answering as an Esplora
 * provider (`GET /address/:address/utxo`, Esplora's documented shape) from the same outputs, but
 * for every `--missing`th address (default 100), answered with no output, so the run records
 * differences (`missing_at_provider`) as it would a provider that disagrees.
 *
 * Set-up (not measured): see treasury-fixture.ts (rows written straight into the address pool's
 * and the watchers' tables), one project. Measured: one `Reconciliation.runAll()` (what the
 * scheduled `treasury.reconcile` job runs), wall time, the HTTP requests the server received, the
 * run's own count of provider calls (batches of `plugins.treasury.reconcileBatch`, `--batch`,
 * default 100) and the differences recorded, checked against the ones planted.
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node_modules/.bin/node --import tsx bench/treasury/reconcile.ts [--addresses 10000] [--missing 100] [--batch 100]
 */
import { createServer } from 'node:http';
import { benchOptions } from '../bench-options.js';
import { runTreasuryBench } from './treasury-fixture.js';

const options = benchOptions({ addresses: 10_000, missing: 100, batch: 100 });

/** What the provider answers per address (filled after set-up, from the rows written). */
const utxos = new Map<string, string>();
let requests = 0;
const provider = createServer((req, res) => {
  const match = /^\/address\/([^/]+)\/utxo$/.exec(req.url ?? '');
  if (req.method !== 'GET' || !match) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  requests += 1;
  res.writeHead(200, { 'content-type': 'application/json' }).end(utxos.get(decodeURIComponent(match[1]!)) ?? '[]');
});

await runTreasuryBench({ addresses: options.addresses, projects: 1, reconcileBatch: options.batch }, provider, async ({ gw }, setUpStartedAt) => {
  let t0 = setUpStartedAt;
  const { db, treasuryReconciliation } = gw.kernel.cradle;
  const rows = await db('watchers_transfers')
    .where({ chain: 'btc', network: 'regtest', status: 'in_block' })
    .whereNull('spent_by')
    .orderBy('id')
    .select('to_address', 'tx_hash', 'output_index', db.raw('amount_units::text as units'), 'block_height');
  let planted = 0;
  rows.forEach((row, i) => {
    if (i % options.missing === 0) return void (planted += 1);
    const status = { confirmed: true, block_height: Number(row.block_height), block_hash: '0'.repeat(64), block_time: 1_700_000_000 };
    utxos.set(row.to_address, JSON.stringify([{ txid: row.tx_hash, vout: row.output_index, value: Number(row.units), status }]));
  });
  console.error(`set-up: ${rows.length} outputs, ${planted} missing at the provider, in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  t0 = performance.now();
  const runs = await treasuryReconciliation.runAll();
  const seconds = (performance.now() - t0) / 1000;
  const run = runs.find((r) => r.chain === 'btc' && r.network === 'regtest');
  if (!run || run.failure) throw new Error(`reconciliation failed: ${JSON.stringify(runs)}`);
  if (run.addresses !== rows.length || run.differences !== planted) throw new Error(`unexpected run: ${JSON.stringify(run)}, planted ${planted}`);
  console.log(
    JSON.stringify(
      {
        addresses: run.addresses,
        http_requests: requests,
        provider_calls_counted_by_the_run: run.provider_calls,
        differences: run.differences,
        seconds: Math.round(seconds * 100) / 100,
        addresses_per_second: Math.round(run.addresses / seconds),
      },
      null,
      2,
    ),
  );
});

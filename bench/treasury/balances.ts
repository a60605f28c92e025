/**
 * Benchmark: the treasury's balances page (issue 35: "the balances page for 100,000 addresses in
 * under 200 ms") over `--addresses` pool addresses (default 100,000), each holding one confirmed
 * unspent btc output, spread over `--projects` projects (default 10) of one operator.
 *
 * Set-up (not measured): see treasury-fixture.ts (rows written straight into the address pool's
 * and the watchers' tables). Measured: `GET /api/v1/treasury/balances` over HTTP with the
 * operator's PAT (treasury:read), as the dashboard and the REST API call it, first page
 * (`--limit`, default 100) per address, per project and per network, and per address within one
 * project; `--repeat` times each (default 20) after two warm-up calls, wall time per request on
 * the client (HTTP, auth, the route's schema, the service, the SQL).
 *
 * Run: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node_modules/.bin/node --import tsx bench/treasury/balances.ts [--addresses 100000] [--projects 10] [--limit 100] [--repeat 20]
 */
import { createServer } from 'node:http';
import { benchOptions } from '../bench-options.js';
import { percentile } from '../measure.js';
import { runTreasuryBench } from './treasury-fixture.js';

const options = benchOptions({ addresses: 100_000, projects: 10, limit: 100, repeat: 20 });
// The watched network's provider: no scan runs, so nobody asks it anything.
const provider = createServer((_req, res) => res.writeHead(404).end('Not Found'));

await runTreasuryBench({ addresses: options.addresses, projects: options.projects }, provider, async ({ gw, projectIds, token }, setUpStartedAt) => {
  let t0 = setUpStartedAt;
  console.error(`set-up: ${options.addresses} addresses over ${options.projects} projects in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const get = async (query: string) => {
    const response = await fetch(`${gw.url}/api/v1/treasury/balances?${query}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { rows: { outputs: number }[]; next: string | null };
    if (response.status !== 200) throw new Error(`${query}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const network = await get('chain=btc&network=regtest&group_by=network');
  const counted = network.rows.reduce((sum, row) => sum + row.outputs, 0);
  if (counted < options.addresses) throw new Error(`the network's balance counts ${counted} outputs, expected at least ${options.addresses}`);

  const cases: [string, string][] = [
    ['per address', `chain=btc&network=regtest&group_by=address&limit=${options.limit}`],
    ['per address, one project', `chain=btc&network=regtest&group_by=address&project_id=${projectIds[0]}&limit=${options.limit}`],
    ['per project', `chain=btc&network=regtest&group_by=project&limit=${options.limit}`],
    ['per network', `chain=btc&network=regtest&group_by=network&limit=${options.limit}`],
    ['per network, no filter', `group_by=network&limit=${options.limit}`],
  ];
  const results: Record<string, { rows: number; median_ms: number; p95_ms: number; max_ms: number }> = {};
  for (const [name, query] of cases) {
    await get(query);
    await get(query);
    const times: number[] = [];
    let rows = 0;
    for (let i = 0; i < options.repeat; i++) {
      t0 = performance.now();
      rows = (await get(query)).rows.length;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    results[name] = { rows, median_ms: round(percentile(times, 50)), p95_ms: round(percentile(times, 95)), max_ms: round(times[times.length - 1]!) };
    console.error(`${name}: ${JSON.stringify(results[name])}`);
  }
  console.log(
    JSON.stringify(
      { addresses: options.addresses, projects: options.projects, outputs: counted, limit: options.limit, repeat: options.repeat, results },
      null,
      2,
    ),
  );
});

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

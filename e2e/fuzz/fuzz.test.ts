/**
 * The bounded fuzz run of CI (issue 24): a fixed number of cases with a fixed seed against every
 * REST route of the OpenAPI document, the sandbox, the OAuth endpoints and the MCP endpoint. No
 * case may get a 5xx, an undocumented answer, another project's data, or write rows when refused.
 * The long run is `scripts/fuzz.ts --cases N --seed S` (figures in docs/reliability.md).
 */
import test from 'ava';
import { fuzz } from './runner.js';
import { startFuzzWorld, type FuzzWorld } from './world.js';

const SEED = 24;
const CASES = Number(process.env['GW_FUZZ_CASES'] ?? 300);

let world: FuzzWorld;
test.before(async () => {
  world = await startFuzzWorld();
});
test.after.always(async () => {
  await world?.close();
});

test('fuzzed requests (fixed seed) never get a 5xx, always get their documented answer, never reach another project, and write nothing when refused', async (t) => {
  const report = await fuzz(world, { seed: SEED, cases: CASES });
  t.is(report.tried, CASES);
  t.log(`seed ${report.seed}: ${report.tried} cases, ${report.requests} requests; ${JSON.stringify(report.byStatus)}`);
  // Every kind of endpoint was reached, and valid cases got through to the handlers.
  const targets = Object.keys(report.byTarget);
  t.true(targets.some((k) => k.startsWith('oauth ')));
  t.true(targets.includes('mcp'));
  t.true(targets.some((k) => k.includes('/sandbox/')));
  for (const kind of ['rest', 'oauth', 'mcp']) {
    t.true((report.byStatus[`${kind} 2xx`] ?? 0) > 0, `no ${kind} request succeeded`);
    t.true((report.byStatus[`${kind} 4xx`] ?? 0) > 0, `no ${kind} request was refused`);
  }
  t.deepEqual(report.failures.map((f) => `#${f.index} ${f.case}\n  - ${f.problems.join('\n  - ')}`), []);
});

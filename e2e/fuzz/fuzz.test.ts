/**
 * The bounded fuzz run of CI (issue 24): a fixed number of cases with a fixed seed against every
 * REST route of the OpenAPI document, the sandbox, the OAuth endpoints and the MCP endpoint. No
 * case may get a 5xx, an undocumented answer, another project's data, or write rows when refused.
 * The long run is `scripts/fuzz.ts --cases N --seed S` (figures in docs/reliability.md).
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { jsonRpcResponseProblems, oauthErrorShape } from './cases.js';
import { fuzz } from './runner.js';
import { countChanges, rowCounts, startFuzzWorld, type FuzzWorld } from './world.js';

const SEED = 24;
const CASES = Number(process.env['GW_FUZZ_CASES'] ?? 600);

let world: FuzzWorld;
test.before(async () => {
  world = await startFuzzWorld();
});
test.after.always(async () => {
  await world?.close();
});

test.serial(
  'fuzzed requests (fixed seed) never get a 5xx, always get their documented answer, never reach another project, and write nothing when refused',
  async (t) => {
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
    t.deepEqual(
      report.failures.map((f) => `#${f.index} ${f.case}\n  - ${f.problems.join('\n  - ')}`),
      [],
    );
  },
);

test.serial('the checks can fail: a REST envelope is no JSON-RPC answer, the kernel envelope no RFC 6749 error, a written row is seen', async (t) => {
  t.not(jsonRpcResponseProblems({ error_code: 'validation_error', message: 'x', request_id: 'r' }).length, 0);
  t.deepEqual(jsonRpcResponseProblems({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'x' } }), []);
  t.not(oauthErrorShape({ error_code: 'unsupported_media_type', message: 'x', request_id: 'r' }), undefined);
  t.is(oauthErrorShape({ error: 'invalid_request', error_description: 'x' }), undefined);
  t.deepEqual(
    countChanges(
      new Map([
        ['public.invoices', 1],
        ['public.kernel_rate_limit_counters', 1],
      ]),
      new Map([
        ['public.invoices', 2],
        ['public.kernel_rate_limit_counters', 5],
      ]),
    ),
    ['public.invoices 1 -> 2'],
  );
  // A real refused write leaves every count as it was, and the counts see a real write.
  const before = await rowCounts(world);
  t.deepEqual(countChanges(before, await rowCounts(world)), []);
  await world.gw.kernel.cradle.tenancyOperators.create(`fuzz-check-${Date.now()}`, CLI_ACTOR);
  t.true(countChanges(before, await rowCounts(world)).some((change) => change.startsWith('public.tenancy_operators')));
});

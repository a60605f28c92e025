/**
 * The long fuzz run (issue 24): `node --import tsx scripts/fuzz.ts --cases 5000 --seed 7` draws that
 * many cases with that seed (the same seed draws the same cases) and sends them to a gateway started
 * in this process on a fresh database of the PostgreSQL at DATABASE_URL (an admin URL; the database
 * is created, migrated and dropped). Prints one line per case tried (index, target, statuses, ok or
 * FAIL), then every failure with its case and broken properties, the figures by target and status,
 * and the duration. Exits 1 when a case failed. The bounded CI run is e2e/fuzz/fuzz.test.ts;
 * figures of long runs are in docs/reliability.md.
 *
 * Options: --cases N (default 2000), --seed S (default: the time), --quiet (no per-case lines).
 */
import { parseArgs } from 'node:util';
import { describeCase } from '../e2e/fuzz/cases.ts';
import { fuzz, targetOf } from '../e2e/fuzz/runner.ts';
import { startFuzzWorld } from '../e2e/fuzz/world.ts';

const { values } = parseArgs({ options: { cases: { type: 'string', default: '2000' }, seed: { type: 'string' }, quiet: { type: 'boolean', default: false } } });
const cases = Number(values.cases);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
if (!Number.isInteger(cases) || cases < 1 || !Number.isInteger(seed)) {
  console.error('usage: scripts/fuzz.ts [--cases N] [--seed S] [--quiet]');
  process.exit(2);
}
if (!process.env['DATABASE_URL'] && !process.env['GW_TEST_ADMIN_URL']) {
  console.error('scripts/fuzz.ts: set DATABASE_URL to a PostgreSQL admin URL (a database is created and dropped)');
  process.exit(2);
}

const startedSetup = Date.now();
const world = await startFuzzWorld();
console.log(`fuzz: seed ${seed}, ${cases} cases, gateway ${world.gw.url} (set-up ${((Date.now() - startedSetup) / 1000).toFixed(1)} s)`);
const started = Date.now();
let report;
try {
  report = await fuzz(world, {
    seed,
    cases,
    onCase: (index, c, problems, statuses) => {
      if (!values.quiet) console.log(`#${index} ${targetOf(c)} ${statuses.join(',')} ${problems.length === 0 ? 'ok' : `FAIL ${describeCase(c)}`}`);
      else if ((index + 1) % 500 === 0) console.log(`  ${index + 1} cases`);
    },
  });
} finally {
  await world.close();
}
const seconds = (Date.now() - started) / 1000;
for (const failure of report.failures) {
  console.log(`\nFAILURE #${failure.index} ${failure.case}`);
  for (const problem of failure.problems) console.log(`  - ${problem}`);
}
console.log(`\nby target: ${JSON.stringify(report.byTarget, null, 1)}`);
console.log(`by status: ${JSON.stringify(report.byStatus)}`);
console.log(
  `\nseed ${seed}: ${report.tried} cases tried, ${report.requests} requests, ${report.failures.length} failed, ${seconds.toFixed(1)} s (${(report.tried / seconds).toFixed(1)} cases/s)`,
);
process.exit(report.failures.length > 0 ? 1 : 0);

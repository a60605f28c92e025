/**
 * The runner's guard (scripts/test-guard.ts): a run fails when a test file declares no test or uses
 * `.only`, `.skip` or `.todo`, which ava alone passes. The fixtures live in a temporary directory,
 * outside ava's globs, so the suite itself never holds such a file.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import test from 'ava';
import { avaGlobs, checkTestFiles, checkTestSource } from '@gw/scripts/test-guard';
import { ROOT } from '@gw/testing';

const globs = await avaGlobs(ROOT);
const PASSING = `import test from 'ava';\ntest('adds', (t) => { t.is(1 + 1, 2); });\n`;

function fixture(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gw-test-guard-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

test('the suite as it stands has nothing the guard refuses', (t) => {
  t.deepEqual(checkTestFiles(ROOT, globs), []);
});

test('.only, .skip and .todo on any chain of the ava import are refused; titles and comments that name them are not', (t) => {
  const refused = [
    `import test from 'ava';\ntest.only('x', (t) => t.pass());\ntest('y', (t) => t.pass());\n`,
    `import test from 'ava';\ntest.serial.only('x', (t) => t.pass());\n`,
    `import test from 'ava';\ntest.skip('x', (t) => t.pass());\ntest('y', (t) => t.pass());\n`,
    `import test from 'ava';\ntest.failing.skip('x', (t) => t.pass());\ntest('y', (t) => t.pass());\n`,
    `import test from 'ava';\ntest.todo('later');\ntest('y', (t) => t.pass());\n`,
    `import avaTest from 'ava';\navaTest('y', (t) => t.pass());\nconst focus = avaTest.only;\nfocus('x', (t) => t.pass());\n`,
  ];
  for (const source of refused) {
    const findings = checkTestSource('f.test.ts', source);
    t.true(
      findings.some((f) => /leaves tests out/.test(f.problem)),
      source,
    );
  }
  const clean = `import test from 'ava';\n// test.only('x') is how one would focus; never here.\ntest('only keys .skip( and .todo( in a title', (t) => { t.is('a.only(1)', 'a.only(1)'); });\n`;
  t.deepEqual(checkTestSource('f.test.ts', clean), []);
});

test('a file with no test is refused: no ava import, hooks only, or only skipped declarations', (t) => {
  t.deepEqual(checkTestSource('a.test.ts', `export const x = 1;\n`), [{ file: 'a.test.ts', problem: 'declares no test (ava is not imported)' }]);
  t.deepEqual(checkTestSource('b.test.ts', `import test from 'ava';\ntest.before(() => {});\ntest.after.always(() => {});\n`), [
    { file: 'b.test.ts', problem: 'declares no test' },
  ]);
  t.true(checkTestSource('c.test.ts', `import test from 'ava';\ntest.todo('later');\n`).some((f) => f.problem === 'declares no test'));
  // ava's typed-context idiom: the alias declares tests, and its modifiers are refused too.
  const aliased = `import anyTest, { type TestFn } from 'ava';\nconst test = anyTest as TestFn<{ n: number }>;\n`;
  t.deepEqual(checkTestSource('e.test.ts', `${aliased}test('x', (t) => t.pass());\n`), []);
  t.true(
    checkTestSource('f.test.ts', `${aliased}test('x', (t) => t.pass());\ntest.skip('y', (t) => t.pass());\n`).some((f) => /leaves tests out/.test(f.problem)),
  );
  // Handing ava's test to a helper that declares the tests (receiverSuite) counts.
  t.deepEqual(checkTestSource('d.test.ts', `import test from 'ava';\nimport { suite } from './suite.js';\nsuite(test, 'go');\n`), []);
});

test("only the files of ava's globs are read", (t) => {
  const dir = fixture({
    'kernel/src/a.test.ts': PASSING,
    'kernel/src/b.test.ts': `import test from 'ava';\ntest('y', (t) => t.pass());\ntest.only('x', (t) => t.pass());\n`,
    'kernel/src/helper.ts': `export {};\n`,
    'kernel/node_modules/dep/c.test.ts': `export {};\n`,
    'docs/d.test.ts': `export {};\n`,
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.deepEqual(
    checkTestFiles(dir, globs).map((f) => f.file),
    ['kernel/src/b.test.ts'],
  );
});

test('scripts/test.ts refuses the run before it starts ava, naming the file and the line', (t) => {
  // A checkout whose one test file is focused; the runner reads ava.config.js from its working
  // directory, as ava does, and must exit 1 before it needs a database.
  const dir = fixture({
    'ava.config.js': `export default ${JSON.stringify({ files: globs })};\n`,
    'e2e/focused.test.ts': `import test from 'ava';\ntest('a', (t) => t.pass());\ntest.only('b', (t) => t.pass());\n`,
    'e2e/empty.test.ts': `import test from 'ava';\n`,
  });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const run = spawnSync(process.execPath, ['--import', import.meta.resolve('tsx'), join(ROOT, 'scripts/test.ts')], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' },
    timeout: 300_000,
  });
  t.is(run.status, 1, run.stderr);
  t.regex(run.stderr, /e2e\/focused\.test\.ts: line 3: `\.only` leaves tests out of the run/);
  t.regex(run.stderr, /e2e\/empty\.test\.ts: declares no test/);
});

import test from 'ava';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCrossPackageImports } from './workspace-imports.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

test('no test imports another package by relative path, and nothing imports another package’s test/ folder', (t) => {
  const findings = findCrossPackageImports(ROOT).map((f) => `${f.file}:${f.line} ${f.specifier}: ${f.problem}`);
  t.deepEqual(findings, [], `import these through @gw/testing, a package's ./testing export or a declared dependency:\n${findings.join('\n')}`);
});

test('the check names a test reaching into another package’s test/ folder, an app’s src/ and another package’s src/', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gw-imports-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('pnpm-workspace.yaml', 'packages:\n  - plugins/*\n  - apps/*\n  - bench\n');
  for (const pkg of ['plugins/a', 'plugins/b', 'apps/gateway', 'bench']) write(`${pkg}/package.json`, '{}');
  write('plugins/a/test/helpers.ts', "export { x } from '../src/x.js';\nimport './own.js';\n");
  write(
    'plugins/a/test/a.test.ts',
    "import { h } from '../../b/test/helpers.js';\nimport { chains } from '../../../apps/gateway/src/chains.js';\nimport { y } from '../../b/src/y.js';\nconst later = await import('../../b/test/late.js');\n",
  );
  write('plugins/a/src/index.ts', "import { y } from '../../b/src/y.js';\n");
  write('bench/run.ts', "import { h } from '../plugins/b/test/helpers.js';\nimport { b } from '../plugins/b/src/index.js';\n");
  t.deepEqual(
    findCrossPackageImports(root)
      .map((f) => `${f.file}:${f.line} ${f.problem}`)
      .sort(),
    [
      "bench/run.ts:1 reaches into plugins/b's test/ folder",
      "plugins/a/test/a.test.ts:1 reaches into plugins/b's test/ folder",
      'plugins/a/test/a.test.ts:2 reaches into apps/gateway by relative path',
      'plugins/a/test/a.test.ts:3 reaches into plugins/b by relative path',
      "plugins/a/test/a.test.ts:4 reaches into plugins/b's test/ folder",
    ],
  );
});

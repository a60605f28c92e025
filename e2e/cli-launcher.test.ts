import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { compiledIsCurrent } from '@gw/scripts/compiled-is-current';
import { ROOT } from '@gw/testing';

// Issue 33 finding 8: `./gateway` runs the compiled CLI, but never one older than its sources.
test('the compiled CLI counts as current only while no input is newer than the bundle', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'gw-launcher-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(root, 'dist'));
  const dist = join(root, 'dist/main.js');
  const at = (file: string, seconds: number) => utimesSync(file, seconds, seconds);
  writeFileSync(join(root, 'src/a.ts'), '');
  writeFileSync(join(root, 'src/b.ts'), '');
  writeFileSync(dist, '');
  t.false(compiledIsCurrent(root, dist), 'no inputs.json: a build from before the list');
  writeFileSync(join(root, 'dist/inputs.json'), JSON.stringify(['src/a.ts', 'src/b.ts']));
  at(join(root, 'src/a.ts'), 1_000);
  at(join(root, 'src/b.ts'), 1_000);
  at(dist, 2_000);
  t.true(compiledIsCurrent(root, dist));
  at(join(root, 'src/b.ts'), 3_000);
  t.false(compiledIsCurrent(root, dist), 'an input edited after the build');
  at(join(root, 'src/b.ts'), 1_000);
  unlinkSync(join(root, 'src/a.ts'));
  t.false(compiledIsCurrent(root, dist), 'an input gone');
});

test('./gateway runs the CLI with only PATH and HOME, from the build or the sources', (t) => {
  const env = { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root' };
  const compiledOrNot = spawnSync('./gateway', ['--help'], { cwd: ROOT, env, encoding: 'utf8' });
  t.is(compiledOrNot.status, 0, compiledOrNot.stderr);
  t.regex(compiledOrNot.stdout, /^Usage: pnpm gateway <noun> <verb>/);
  const fromSource = spawnSync('./gateway', ['--help'], { cwd: ROOT, env: { ...env, GW_CLI_FROM_SOURCE: '1' }, encoding: 'utf8' });
  t.is(fromSource.status, 0, fromSource.stderr);
  t.is(fromSource.stdout, compiledOrNot.stdout);
  t.is(fromSource.stderr, '');
});

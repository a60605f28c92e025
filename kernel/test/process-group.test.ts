import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { liveGroupMembers, spawnGroup, waitFor } from '../src/testing/index.js';

const membersOf = liveGroupMembers;

// A wrapper that starts the real program and waits for it, like node_modules/.bin wrappers.
const WRAPPER = ['-c', 'sleep 300 & wait'];

test('stopping a wrapper alone leaves the program it started running (why groups exist)', async (t) => {
  const wrapper = spawn('sh', WRAPPER, { detached: true, stdio: 'ignore' });
  const pgid = wrapper.pid!;
  await waitFor(async () => membersOf(pgid).length === 2, 5000, 'the wrapper and its program');
  const exited = new Promise((resolve) => wrapper.once('exit', resolve));
  wrapper.kill('SIGKILL');
  await exited;
  t.is(membersOf(pgid).length, 1, 'the program outlives its killed wrapper');
  process.kill(-pgid, 'SIGKILL');
  await waitFor(async () => membersOf(pgid).length === 0, 5000, 'the cleanup');
});

test('spawnGroup: stop() ends the wrapper and everything it started', async (t) => {
  const group = spawnGroup('sh', WRAPPER, { stdio: 'ignore' });
  const pgid = group.child.pid!;
  await waitFor(async () => membersOf(pgid).length === 2, 5000, 'the wrapper and its program');
  await group.stop();
  await waitFor(async () => membersOf(pgid).length === 0, 5000, 'every member of the group gone');
  t.deepEqual(membersOf(pgid), []);
  await t.notThrowsAsync(group.stop(), 'stopping a stopped group is harmless');
});

test('spawnGroup: stop() lets a program finish on SIGTERM after its wrapper is gone (anvil writes its state file then)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-group-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'state');
  const ready = join(dir, 'ready');
  // The program takes 300 ms after SIGTERM to write its file; the shell wrapper dies at once. It
  // says when its handler is in place: a SIGTERM before that (a slow start on a loaded machine)
  // would kill it unhandled and test nothing of stop().
  const code = `process.on("SIGTERM", () => setTimeout(() => { require("fs").writeFileSync(${JSON.stringify(file)}, "written"); process.exit(0); }, 300)); require("fs").writeFileSync(${JSON.stringify(ready)}, ""); setInterval(() => {}, 1000);`;
  const group = spawnGroup('sh', ['-c', `'${process.execPath}' -e '${code}' & wait`], { stdio: 'ignore' });
  const pgid = group.child.pid!;
  await waitFor(async () => membersOf(pgid).length === 2 && existsSync(ready), 30_000, 'the wrapper and its program, its handler in place');
  await group.stop(5000);
  t.deepEqual(membersOf(pgid), [], 'every member gone when stop() resolves');
  t.is(readFileSync(file, 'utf8'), 'written');
});

test('spawnGroup: a program that cannot be started is stopped without hanging or crashing the test', async (t) => {
  const group = spawnGroup('/nonexistent/program', [], { stdio: 'ignore' });
  await t.notThrowsAsync(group.stop());
  t.is(group.child.pid, undefined);
});

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { liveGroupMembers, ProgramExitedError, spawnGroup, startOnFreePorts, untilAnswering, untilReadyLine, waitFor } from '../src/testing/index.js';

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

test('untilReadyLine: returns the rest of the ready line a program writes once it has bound its own port', async (t) => {
  const code =
    'const s = require("net").createServer().listen(0, "127.0.0.1", () => { process.stdout.write("loading\\nready " + JSON.stringify({ port: s.address().port }) + "\\n"); });';
  const group = spawnGroup(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => group.stop());
  const { port } = JSON.parse(await untilReadyLine(group, 'ready ', 'listener')) as { port: number };
  t.true(Number.isInteger(port) && port > 0, `a bound port: ${port}`);
});

test('untilReadyLine: a program that exits before its ready line fails with its exit code and stderr, and its group is stopped', async (t) => {
  const group = spawnGroup(process.execPath, ['-e', 'process.stderr.write("EADDRINUSE 127.0.0.1:1234"); process.exit(3);'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const error = await t.throwsAsync(untilReadyLine(group, 'ready ', 'listener'));
  t.regex(error!.message, /^listener did not start: exited \(code 3\); stderr: EADDRINUSE 127\.0\.0\.1:1234$/);
  t.deepEqual(membersOf(group.child.pid!), []);
});

test('untilReadyLine: a program that never says ready fails after the timeout, and its group is stopped', async (t) => {
  const group = spawnGroup(process.execPath, ['-e', 'setInterval(() => {}, 1000);'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const error = await t.throwsAsync(untilReadyLine(group, 'ready ', 'silent', 300));
  t.regex(error!.message, /^silent did not start: no "ready " line within 300 ms$/);
  t.deepEqual(membersOf(group.child.pid!), []);
});

test('untilAnswering: a program that exits before answering fails with ProgramExitedError and its exit code; one that only stays silent fails with a plain Error', async (t) => {
  const exiting = spawnGroup(process.execPath, ['-e', 'process.exit(2)'], { stdio: 'ignore' });
  const refused = () => Promise.reject(new Error('connect ECONNREFUSED'));
  const exited = await t.throwsAsync(untilAnswering(exiting, refused, 'node'), { instanceOf: ProgramExitedError });
  t.regex(exited!.message, /^node did not start: connect ECONNREFUSED \(it exited with code 2\)$/);
  const silent = spawnGroup(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const timedOut = await t.throwsAsync(untilAnswering(silent, refused, 'node', () => silent.stop(), 300));
  t.false(timedOut instanceof ProgramExitedError);
  t.deepEqual(membersOf(silent.child.pid!), [], 'the silent one was stopped');
});

test('startOnFreePorts: starts again after an exit at start-up, at most `attempts` times; other failures are not retried', async (t) => {
  let calls = 0;
  const exitsTwice = async () => {
    calls += 1;
    if (calls < 3) throw new ProgramExitedError('node did not start: EADDRINUSE');
    return 'answering';
  };
  t.is(await startOnFreePorts(exitsTwice), 'answering');
  t.is(calls, 3);
  calls = 0;
  await t.throwsAsync(startOnFreePorts(exitsTwice, 2), { instanceOf: ProgramExitedError });
  t.is(calls, 2, 'gives up after two attempts');
  calls = 0;
  const silent = async () => {
    calls += 1;
    throw new Error('node did not start: no answer');
  };
  await t.throwsAsync(startOnFreePorts(silent), { message: 'node did not start: no answer' });
  t.is(calls, 1, 'a program that never answered is not started again');
});

test('untilReadyLine: a program that cannot be started fails at once with the spawn error', async (t) => {
  const group = spawnGroup('/nonexistent/program', [], { stdio: ['ignore', 'pipe', 'pipe'] });
  const error = await t.throwsAsync(untilReadyLine(group, 'ready ', 'missing', 30_000));
  t.regex(error!.message, /^missing did not start: spawn \/nonexistent\/program ENOENT/);
});

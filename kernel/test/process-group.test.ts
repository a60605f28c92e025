import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import test from 'ava';
import { spawnGroup, waitFor } from '../src/testing/index.js';

/** Live (non-zombie) processes whose process group is `pgid`. */
function membersOf(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces, so split after ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') members.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return members;
}

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

test('spawnGroup: a program that cannot be started is stopped without hanging or crashing the test', async (t) => {
  const group = spawnGroup('/nonexistent/program', [], { stdio: 'ignore' });
  await t.notThrowsAsync(group.stop());
  t.is(group.child.pid, undefined);
});

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * A child process started as the leader of its own process group, so `stop()` ends it with
 * everything it started. Package binaries under `node_modules/.bin` are shell or node wrappers
 * around the real program (anvil's wrapper is node, which starts the native anvil): stopping
 * only the wrapper leaves the program running after the tests.
 */
export interface ProcessGroup {
  readonly child: ChildProcess;
  /**
   * Sends SIGTERM to the whole group and waits for every member to exit, SIGKILL after `graceMs`.
   * Members can outlive the leader: a wrapper exits at once, while the program it started is still
   * finishing (anvil writes its `--state` file on SIGTERM); killing the group as soon as the leader
   * is gone cut that short.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Starts `command` in a new process group (see `ProcessGroup`). */
export function spawnGroup(command: string, args: readonly string[], options: Omit<SpawnOptions, 'detached'> = {}): ProcessGroup {
  const child = spawn(command, args, { ...options, detached: true });
  // Detached children would keep this process alive; the group is stopped explicitly instead.
  child.unref();
  // A child that could not be spawned (ENOENT) emits 'error' and never 'exit'.
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    }
  });
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const groupAlive = (): boolean => child.pid !== undefined && liveGroupMembers(child.pid).length > 0;
  return {
    child,
    async stop(graceMs = 2000) {
      const deadline = Date.now() + graceMs;
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      while (groupAlive() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      clearTimeout(timer);
      // Members that ignored SIGTERM past the grace period: the group is ended either way.
      signalGroup('SIGKILL');
    },
  };
}

/**
 * The live members of process group `pgid` (zombies left out: a member that exited but is not
 * reaped yet is gone for every purpose here). Read from /proc.
 */
export function liveGroupMembers(pgid: number): number[] {
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

/**
 * Waits until `probe` resolves (a node answering its first request), retrying every 100 ms. When
 * `timeoutMs` passes or the group's leader exits first, `cleanUp` runs (stopping the group and
 * whatever the caller made for it) and the error says `<name> did not start` with the probe's
 * last failure.
 */
export async function untilAnswering<T>(
  group: ProcessGroup,
  probe: () => Promise<T>,
  name: string,
  cleanUp: () => Promise<void> = () => group.stop(),
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (error) {
      if (Date.now() > deadline || group.child.exitCode !== null) {
        await cleanUp();
        throw new Error(`${name} did not start: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

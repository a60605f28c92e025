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

/** A program that exited before it answered (`untilAnswering`): a port it was given may have been taken meanwhile. */
export class ProgramExitedError extends Error {
  override readonly name = 'ProgramExitedError';
}

/**
 * Runs `start` (which chooses free ports, then starts a program on them) again, at most `attempts`
 * times in all, while it fails with `ProgramExitedError`: a port free when chosen can be taken by
 * another process before the program binds it, and the program then exits. Other failures (a
 * program that never answers) are not retried.
 */
export async function startOnFreePorts<T>(start: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof ProgramExitedError) || attempt >= attempts) throw error;
    }
  }
}

/**
 * Waits until `probe` resolves (a node answering its first request), retrying every 100 ms. When
 * `timeoutMs` passes or the group's leader exits first, `cleanUp` runs (stopping the group and
 * whatever the caller made for it) and the error says `<name> did not start` with the probe's
 * last failure; a `ProgramExitedError` when the leader exited.
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
      const { exitCode, signalCode } = group.child;
      const exited = exitCode !== null || signalCode !== null;
      if (Date.now() > deadline || exited) {
        await cleanUp();
        const message = `${name} did not start: ${(error as Error).message}`;
        throw exited ? new ProgramExitedError(`${message} (it exited with ${signalCode ?? `code ${exitCode}`})`) : new Error(message);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/**
 * Waits for the first line of the group leader's stdout that starts with `prefix` (the leader was
 * spawned with stdout and stderr piped) and returns the rest of that line. A program that binds
 * its own ports (port 0) reports them this way, so no port is chosen here and taken by another
 * process before the program binds it. When the leader exits first, or `timeoutMs` passes, the
 * group is stopped and the error says `<name> did not start` with the exit status and the end of
 * what the program wrote to stderr. After the line, both streams are drained and unreferenced.
 */
export async function untilReadyLine(group: ProcessGroup, prefix: string, name: string, timeoutMs = 60_000): Promise<string> {
  const { child } = group;
  const { stdout, stderr } = child;
  if (!stdout || !stderr) {
    await group.stop();
    throw new Error(`${name}: spawn it with stdout and stderr piped`);
  }
  let errors = '';
  const keepTail = (chunk: Buffer): void => {
    errors = (errors + chunk.toString('utf8')).slice(-2000);
  };
  stderr.on('data', keepTail);
  const stderrClosed = new Promise<void>((resolve) => stderr.once('close', () => resolve()));
  let pending = '';
  let settle: (outcome: { line: string } | { failure: string }) => void = () => undefined;
  const outcome = new Promise<{ line: string } | { failure: string }>((resolve) => (settle = resolve));
  const onData = (chunk: Buffer): void => {
    pending += chunk.toString('utf8');
    for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
      const line = pending.slice(0, end);
      pending = pending.slice(end + 1);
      if (line.startsWith(prefix)) settle({ line: line.slice(prefix.length) });
    }
  };
  const onExit = (): void => settle({ failure: `exited (${child.signalCode ?? `code ${child.exitCode}`})` });
  const onError = (error: Error): void => settle({ failure: error.message });
  const timer = setTimeout(() => settle({ failure: `no "${prefix}" line within ${timeoutMs} ms` }), timeoutMs);
  stdout.on('data', onData);
  child.once('exit', onExit);
  child.once('error', onError);
  if (child.exitCode !== null || child.signalCode !== null) onExit();
  const result = await outcome;
  clearTimeout(timer);
  child.off('exit', onExit);
  child.off('error', onError);
  stdout.off('data', onData);
  if ('failure' in result) {
    await group.stop();
    // 'exit' can come before the last of stderr is read: what the program said last is the point.
    await Promise.race([stderrClosed, new Promise((resolve) => setTimeout(resolve, 1000))]);
    throw new Error(`${name} did not start: ${result.failure}${errors ? `; stderr: ${errors.trim()}` : ''}`);
  }
  stderr.off('data', keepTail);
  for (const stream of [stdout, stderr]) {
    stream.resume();
    (stream as { unref?: () => void }).unref?.();
  }
  return result.line;
}

import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/**
 * A child process started as the leader of its own process group, so `stop()` ends it with
 * everything it started. Package binaries under `node_modules/.bin` are shell or node wrappers
 * around the real program (anvil's wrapper is node, which starts the native anvil): stopping
 * only the wrapper leaves the program running after the tests.
 */
export interface ProcessGroup {
  readonly child: ChildProcess;
  /** Sends SIGTERM to the whole group, then SIGKILL after `graceMs`; resolves once the leader exited. */
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
  return {
    child,
    async stop(graceMs = 2000) {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // Members that ignored SIGTERM outlive the leader: the group is ended either way.
      signalGroup('SIGKILL');
    },
  };
}

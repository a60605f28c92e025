/** The benchmarks' child processes: a TypeScript entry point run apart, so its CPU is measured alone. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface TsxChildOptions {
  /** The child's whole environment; default: this process's. See {@link minimalEnv}. */
  readonly env?: NodeJS.ProcessEnv;
  readonly cwd?: string;
  /** Write a V8 CPU profile into .data/cpu-prof. */
  readonly profile?: boolean;
}

/** PATH and HOME only: a child that must not pick up this process's settings. */
export function minimalEnv(): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root' };
}

/**
 * Runs `node --import tsx ...args` and resolves with the first stdout line `ready` matches (its log
 * lines, JSON too, may come first); rejects when the child exits before. Its stderr is this process's.
 */
export function startTsxChild(args: readonly string[], ready: RegExp, options: TsxChildOptions = {}): Promise<{ child: ChildProcess; line: string }> {
  const profile = options.profile ? ['--cpu-prof', '--cpu-prof-dir=.data/cpu-prof'] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', ...args], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.env ? { env: options.env } : {}),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onLine = (line: string) => {
      if (!ready.test(line)) return;
      lines.off('line', onLine);
      resolve({ child, line });
    };
    lines.on('line', onLine);
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
}

/** Sends SIGTERM to a child still running and waits for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

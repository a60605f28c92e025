import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { OFFLINE_PLUGIN_CONFIG } from '@gw/kernel/testing';

/** The workspace root (the apps are started from there). */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * The environment every process an end-to-end test starts begins with: a clean one (the app reads
 * only what the test gives it), the settings that keep the app off the internet
 * (`OFFLINE_PLUGIN_CONFIG` of @gw/kernel/testing as `GW__plugins__<id>__<key>` variables: the
 * watchers' public providers; a test of them passes its own value, which wins), plus the test run's
 * marker so the runner can tell whether a test left a process behind (scripts/test.ts).
 */
export function baseEnv(): Record<string, string> {
  const run = process.env['GW_TEST_RUN'];
  const offline = Object.entries(OFFLINE_PLUGIN_CONFIG).flatMap(([id, keys]) =>
    Object.entries(keys).map(([key, value]) => [`GW__plugins__${id}__${key}`, JSON.stringify(value)] as const),
  );
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...Object.fromEntries(offline), ...(run ? { GW_TEST_RUN: run } : {}) };
}

/** A child process of the real app, with its output collected. */
export interface AppProcess {
  readonly child: ChildProcess;
  output(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * Starts `apps/<app>/src/main.ts` on Node 24 (this process's Node) with the given environment; with
 * `compiled`, the app's compiled entry point at that path instead (plain Node, as in production).
 */
export function startApp(app: 'all' | 'gateway' | 'worker' | 'cli', env: Record<string, string>, args: string[] = [], compiled?: string): AppProcess {
  const entry = compiled !== undefined ? ['--enable-source-maps', compiled] : ['--import', 'tsx', `apps/${app}/src/main.ts`];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => text, exited };
}

/** Runs a command to completion with its standard input closed; its exit code and its standard output and error, collected apart. */
export function runProcess(
  command: string,
  args: readonly string[],
  options: { readonly cwd?: string; readonly env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { ...(options.cwd ? { cwd: options.cwd } : {}), env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

/** Waits until the app prints its start-up line and returns the URL in it. */
export async function waitForUrl(app: AppProcess, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /listening on (http:\/\/\S+)/.exec(app.output());
    if (match) return match[1]!;
    if (app.child.exitCode !== null) throw new Error(`app exited early:\n${app.output()}`);
    if (Date.now() > deadline) throw new Error(`no start-up line within ${timeoutMs} ms:\n${app.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs the operator CLI to completion; parses --json output. */
export async function runCliProcess(env: Record<string, string>, ...args: string[]): Promise<{ code: number | null; json: any; output: string }> {
  const proc = startApp('cli', env, args);
  const code = await proc.exited;
  let json: unknown;
  try {
    json = JSON.parse(proc.output());
  } catch {
    json = undefined;
  }
  return { code, json, output: proc.output() };
}

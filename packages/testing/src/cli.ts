import { loadConfig, type AnyPlugin, type ChainModule } from '@gw/kernel';
import { withOfflineConfig } from '@gw/kernel/testing';
import { runOperatorCli, type OperatorCliOptions } from '@gw/operator-cli';

/** What one CLI invocation printed, and its exit code; `json` when stdout parses as JSON. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly json: any;
}

/**
 * For tests: a function that runs the operator CLI (`@gw/operator-cli`, the commands of the kernel
 * and of `plugins`) in process against `databaseUrl` with silent
 * logs, the test master key and any further config, capturing its output. Settings that would reach
 * the internet are off unless the overrides set them (`OFFLINE_PLUGIN_CONFIG`).
 */
export function cliRunner(options: {
  plugins: readonly AnyPlugin[];
  chains: readonly ChainModule[];
  databaseUrl: () => string;
  /** Further config, read at each run (test servers start after the runner is made). */
  overrides?: () => Record<string, unknown>;
  /** The CLI to run; default the operator commands. The CLI app's tests pass its `runCli` (partner commands too). */
  run?: (argv: readonly string[], options: OperatorCliOptions) => Promise<number>;
}): (...argv: string[]) => Promise<CliRun> {
  return async (...argv) => {
    const config = loadConfig({
      env: {},
      file: false,
      overrides: withOfflineConfig(options.plugins, {
        'database.url': options.databaseUrl(),
        'log.level': 'silent',
        'security.masterKey': '0f'.repeat(32),
        ...options.overrides?.(),
      }),
    });
    return captureCli((io) => (options.run ?? runOperatorCli)(argv, { plugins: options.plugins, chains: options.chains, config, io }));
  };
}

/** For tests: runs one CLI invocation with `io` capturing what it prints, and answers its exit code and output. */
export async function captureCli(run: (io: NonNullable<OperatorCliOptions['io']>) => Promise<number>): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run({ out: (s) => out.push(s), err: (s) => err.push(s) });
  const stdout = out.join('\n');
  let json: any;
  try {
    json = JSON.parse(stdout);
  } catch {
    json = undefined;
  }
  return { code, stdout, stderr: err.join('\n'), json };
}

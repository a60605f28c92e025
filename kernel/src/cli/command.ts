import type { Cradle } from '../container.js';
import { restrictCradle, type DepName, type Deps } from '../deps.js';

/** One flag of a CLI command. Flags are always `--name value` (or bare for booleans). */
export interface CliFlag {
  readonly type: 'string' | 'boolean';
  readonly description: string;
  readonly required?: boolean;
  /**
   * Allowed values of a string flag: a list, or `chains` / `coins` for the ids of the build's
   * chains or their coins (the CLI resolves them from the composition, so help and checks follow
   * the chains a build carries; a disabled chain is then refused by the kernel's registry).
   */
  readonly choices?: readonly string[] | 'chains' | 'coins';
  /** Custom check; return an error message to refuse the value. */
  readonly validate?: (value: string) => string | undefined;
}

/** What a command's `run` receives. */
export interface CliRunContext<K extends DepName = DepName> {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  /** The services the command declared, nothing else (ADR 0009): reading another name throws. */
  readonly deps: Deps<K>;
}

/**
 * An operator CLI command: `pnpm gateway <noun> <verb> [flags]`. `run` returns a plain object
 * (printed as JSON with `--json`, else as aligned `key: value` lines) or throws an AppError, which
 * the CLI prints as `error <code>: <message>` with a non-zero exit. Commands that create secrets
 * return them once in their result; nothing else ever prints them again.
 */
export interface CliCommand<K extends DepName = DepName> {
  readonly noun: string;
  readonly verb: string;
  readonly summary: string;
  readonly flags?: Readonly<Record<string, CliFlag>>;
  /** Extra help text: examples, notes. */
  readonly help?: string;
  /**
   * The command speaks its own protocol on stdout (`mcp stdio`): the CLI prints no result, sends
   * logs and errors to stderr, and `--json` does not apply.
   */
  readonly ownsStdout?: boolean;
  /** Whether the command needs the database (default true). */
  readonly needsDatabase?: boolean;
  /**
   * The services `run` reads, like a route's or a job's (ADR 0009): checked at start-up (each
   * exists, and is the kernel's, the plugin's own or exported by a plugin in its `dependsOn`).
   */
  readonly deps: readonly K[];
  readonly run: (context: CliRunContext<K>) => Promise<object>;
}

/**
 * Declares a CLI command with the services its `run` reads, like `withDeps` for routes:
 *
 * ```ts
 * defineCommand(['tenancyProjects'], { noun: 'project', verb: 'show', summary: '…', run: async ({ flags, deps }) => … }),
 * ```
 *
 * The names are checked against `Cradle` at compile time and `deps` is typed as just those.
 */
export function defineCommand<const K extends DepName>(deps: readonly K[], command: Omit<CliCommand<K>, 'deps'>): CliCommand<K> {
  return { ...command, deps: [...deps] };
}

/**
 * Runs `command` with the view of `cradle` it declared (the CLI, and tests that run a command in
 * process). A command without a `deps` list is refused, as an undeclared route is.
 */
export function runCommand(
  command: CliCommand,
  flags: CliRunContext['flags'],
  cradle: Cradle,
  owner = `cli command "${commandName(command)}"`,
): Promise<object> {
  if (!Array.isArray(command.deps)) throw new Error(`${owner} must declare its deps with defineCommand (ADR 0009)`);
  return command.run({ flags, deps: restrictCradle<DepName>(cradle, command.deps, () => owner) as CliRunContext['deps'] });
}

/** `noun verb`, or just `noun` for a one-word command (`doctor`). */
function commandName(command: Pick<CliCommand, 'noun' | 'verb'>): string {
  return command.verb ? `${command.noun} ${command.verb}` : command.noun;
}

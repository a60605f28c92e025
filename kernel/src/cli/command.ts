import type { Cradle } from '../container.js';

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
export interface CliRunContext {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly cradle: Cradle;
}

/**
 * An operator CLI command: `pnpm gateway <noun> <verb> [flags]`. `run` returns a plain object
 * (printed as JSON with `--json`, else as aligned `key: value` lines) or throws an AppError, which
 * the CLI prints as `error <code>: <message>` with a non-zero exit. Commands that create secrets
 * return them once in their result; nothing else ever prints them again.
 */
export interface CliCommand {
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
  readonly run: (context: CliRunContext) => Promise<object>;
}

import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import {
  ConfigError,
  createChainRegistry,
  createKernel,
  enabledChainModules,
  isAppError,
  kernelReadinessChecks,
  loadConfig,
  runCommand,
  runReadinessChecks,
  type ReadinessReport,
  type AnyPlugin,
  type ChainModule,
  type CliCommand,
  type Cradle,
  type Kernel,
  type KernelConfig,
} from '@gw/kernel';
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

export interface OperatorCliOptions {
  readonly plugins: readonly AnyPlugin[];
  readonly chains: readonly ChainModule[];
  readonly io: CliIo;
  /** Config to use instead of loading it from file and environment (tests). */
  readonly config?: KernelConfig;
  /** The environment config is loaded from when `config` is not given; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Text printed after the command list of `gateway --help` (the app names its partner commands there). */
  readonly usageFooter?: string;
}

/** Commands the CLI itself owns (the kernel's): migrations. */
const kernelCommands: CliCommand[] = [
  {
    noun: 'db',
    verb: 'migrate',
    summary: 'Apply pending migrations of the kernel and every enabled plugin (start-up does this too).',
    deps: [],
    run: async () => ({}),
  },
  {
    noun: 'db',
    verb: 'status',
    summary: 'List migrations not yet applied.',
    deps: [],
    run: async () => ({}),
  },
  {
    noun: 'doctor',
    verb: '',
    summary: 'List what is missing for real payments (watchers, wallets, rates, webhook URLs, master key); exits 1 when anything blocks them.',
    help:
      'The same checks run at start-up (logged) and in the details of /readyz. Each finding names the chain, project or key and how to fix it.\n' +
      'Exit code: 0 when nothing blocks real payments (warnings may remain), 1 otherwise.',
    deps: [],
    run: async () => ({}),
  },
  {
    noun: 'master-key',
    verb: 'reseal',
    summary:
      'Re-seal every stored secret that opens only under a key of security.previousMasterKeys (GW_PREVIOUS_MASTER_KEYS) under the current GW_MASTER_KEY; afterwards the previous keys can be dropped. See docs/deployment.md.',
    deps: [],
    run: async () => ({}),
  },
];

/**
 * The operator commands, `gateway <noun> <verb> [--flags] [--json]`: the kernel's own (migrations,
 * doctor, master-key reseal) and those the plugins declare. Returns the exit code: 0 on success, 1
 * when the command failed (error printed), 2 for usage errors (unknown command, bad or missing
 * flags), in which case nothing was written. It needs the kernel only, so tests of any plugin run
 * it in process (through `@gw/testing`'s `cliRunner`) without depending on the CLI app.
 */
export async function runOperatorCli(argv: readonly string[], options: OperatorCliOptions): Promise<number> {
  const { io } = options;
  const commands = withChainChoices([...kernelCommands, ...options.plugins.flatMap((p) => p.cli ?? [])], chainsForChoices(options));
  const json = argv.includes('--json');
  const help = argv.includes('--help') || argv.includes('-h');
  // A noun may be two words (`oauth apps list`); the longest noun some command has wins.
  const positional = argv.filter((a) => !a.startsWith('-'));
  const nounWords = positional.length >= 2 && commands.some((c) => c.noun === `${positional[0]} ${positional[1]}`) ? 2 : 1;
  const noun: string | undefined = positional.length > 0 ? positional.slice(0, nounWords).join(' ') : undefined;
  const verb: string | undefined = positional[nounWords];

  const fail = (code: number, errorCode: string, message: string) => {
    if (json) io.out(JSON.stringify({ error_code: errorCode, message }, null, 2));
    else io.err(`error ${errorCode}: ${message}`);
    return code;
  };

  if (!noun || (help && !verb && !commands.some((c) => c.noun === noun && c.verb === ''))) {
    const nouns = noun ? commands.filter((c) => c.noun === noun || c.noun.startsWith(`${noun} `)) : commands;
    if (noun && nouns.length === 0) return fail(2, 'usage', `unknown command "${noun}"; run "gateway --help"`);
    io.out(noun || options.usageFooter === undefined ? usage(nouns) : `${usage(nouns)}\n\n${options.usageFooter}`);
    return noun || help ? 0 : 2;
  }
  // A one-word command (`gateway doctor`) is declared with an empty verb.
  const command = commands.find((c) => c.noun === noun && c.verb === (verb ?? ''));
  if (!command) {
    const known = commands.filter((c) => c.noun === noun).map((c) => c.verb);
    return fail(
      2,
      'usage',
      known.length ? `unknown command "${noun} ${verb ?? ''}"; ${noun} takes: ${known.join(', ')}` : `unknown command "${noun}"; run "gateway --help"`,
    );
  }
  if (help) {
    io.out(commandHelp(command));
    return 0;
  }

  const flagSpecs = command.flags ?? {};
  // The command's words are the first positional tokens; a flag value equal to one of them stays.
  const commandWordIndexes = new Set(argv.flatMap((a, i) => (a.startsWith('-') ? [] : [i])).slice(0, nounWords + 1));
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: argv.filter((_, i) => !commandWordIndexes.has(i)),
      options: {
        json: { type: 'boolean' },
        ...Object.fromEntries(Object.entries(flagSpecs).map(([name, spec]) => [name, { type: spec.type }])),
      },
      strict: true,
      allowPositionals: false,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    return fail(2, 'usage', `${(error as Error).message.split('\n')[0]} (see "gateway ${commandName(command)} --help")`);
  }
  for (const [name, spec] of Object.entries(flagSpecs)) {
    const value = values[name];
    if (value === undefined) {
      if (spec.required) return fail(2, 'usage', `missing required flag --${name} (see "gateway ${commandName(command)} --help")`);
      continue;
    }
    if (typeof value === 'string') {
      if (Array.isArray(spec.choices) && !spec.choices.includes(value)) return fail(2, 'usage', `--${name} must be one of ${spec.choices.join(', ')}`);
      const problem = spec.validate?.(value);
      if (problem) return fail(2, 'usage', `--${name} ${problem}`);
    }
  }

  if (command.needsDatabase === false) {
    let cradle: Cradle;
    try {
      cradle = offlineCradle(options.chains, options.config ?? loadConfig({ env: options.env ?? process.env }));
    } catch (error) {
      // A config that does not load, or a chains.* key the chains refuse (the message names it).
      return fail(1, 'config_error', (error as Error).message);
    }
    try {
      const result = await runCommand(command, values, cradle);
      io.out(json ? JSON.stringify(result, null, 2) : render(result));
      return 0;
    } catch (error) {
      if (isAppError(error)) return fail(1, error.code, error.message);
      return fail(1, 'internal_error', (error as Error).message);
    }
  }

  let kernel: Kernel | undefined;
  let exitCode = 0;
  try {
    let config = options.config ?? loadConfig({ overrides: { 'log.level': process.env['LOG_LEVEL'] ?? 'warn' } });
    const configured = config;
    if (command.noun === 'doctor' && !config.security.masterKey && config.env !== 'development') {
      // The missing key is a finding, not a reason to stop: the other checks read nothing sealed.
      config = { ...config, security: { ...config.security, masterKey: randomBytes(32).toString('hex') } };
    }
    // Like every process, the CLI applies pending migrations before a command runs (a fresh database
    // works at once); `db status` only connects, so it can report what is pending.
    kernel = createKernel({
      config,
      plugins: options.plugins,
      chains: options.chains,
      role: 'cli',
      // stdout is the command's protocol channel: logs must not land in it.
      ...(command.ownsStdout ? { logger: pino({ level: config.log.level }, pino.destination(2)) } : {}),
    });
    let result: object | string;
    if (command.noun === 'db' && command.verb === 'migrate') {
      const applied = await kernel.migrate();
      result = { applied, count: applied.length };
    } else if (command.noun === 'db' && command.verb === 'status') {
      result = { pending: await kernel.pendingMigrations() };
    } else if (command.noun === 'doctor') {
      await kernel.start();
      const report = await kernel.readiness();
      // The master key as configured, not the stand-in the checks ran with.
      const [masterKey] = (await runReadinessChecks(kernelReadinessChecks(configured))).checks;
      const checks = report.checks.map((c) => (c.check === masterKey!.check ? masterKey! : c));
      const errors = checks.filter((c) => c.severity === 'error').length;
      const doctor: ReadinessReport = { ready: errors === 0, errors, warnings: checks.filter((c) => c.severity === 'warning').length, checks };
      result = json ? doctor : renderDoctor(doctor);
      if (!doctor.ready) exitCode = 1;
    } else if (command.noun === 'master-key' && command.verb === 'reseal') {
      await kernel.migrate();
      const columns = await kernel.resealSecrets();
      result = { columns, resealed: columns.reduce((sum, c) => sum + c.resealed, 0) };
    } else {
      await kernel.start();
      result = await runCommand(command, values, kernel.cradle);
    }
    if (!command.ownsStdout) io.out(json ? JSON.stringify(result, null, 2) : typeof result === 'string' ? result : render(result));
    return exitCode;
  } catch (error) {
    if (command.ownsStdout) {
      io.err(`error ${isAppError(error) ? error.code : error instanceof ConfigError ? 'config_error' : 'internal_error'}: ${(error as Error).message}`);
      return 1;
    }
    if (error instanceof ConfigError) return fail(1, 'config_error', error.message);
    if (isAppError(error)) return fail(1, error.code, error.message);
    return fail(1, 'internal_error', (error as Error).message);
  } finally {
    await kernel?.stop().catch(() => undefined);
  }
}

/**
 * The cradle of a command that declares `needsDatabase: false`: chains and a logger only, so such
 * commands (e.g. `wallet preview`) work before any database exists. Anything else is a bug in the
 * command's declaration and fails loudly. The chains are the ones the config runs, as the other
 * commands and the app see them (`chains.enabled`, `chains.testNetworks`, `chains.testTokenContracts`).
 */
function offlineCradle(chains: readonly ChainModule[], config: KernelConfig): Cradle {
  const logger = pino({ level: 'warn' });
  const registry = createChainRegistry(chains, logger, {
    enabled: config.chains.enabled,
    testNetworks: config.chains.testNetworks,
    testTokenContracts: config.chains.testTokenContracts,
  });
  const available: Record<string, unknown> = { chains: registry, logger };
  return new Proxy(available, {
    get(target, name) {
      if (typeof name === 'string' && name in target) return target[name];
      throw new Error(`"${String(name)}" needs the database; the command must not declare needsDatabase: false`);
    },
  }) as unknown as Cradle;
}

/**
 * The chains whose ids `choices: 'chains' | 'coins'` offer: the composition's chains that config
 * `chains.enabled` turns on (the default ones without config, which is what the generated CLI
 * reference shows). A config that does not load or names an unknown chain falls back to the
 * defaults here; the kernel reports it when the command starts.
 */
function chainsForChoices(options: OperatorCliOptions): readonly ChainModule[] {
  let enabled: readonly string[] | undefined;
  try {
    enabled = (options.config ?? loadConfig({ env: options.env ?? process.env })).chains.enabled;
    return enabledChainModules(options.chains, enabled);
  } catch {
    return options.chains.filter((chain) => chain.enabledByDefault !== false);
  }
}

/** Commands whose `choices: 'chains' | 'coins'` are replaced by the ids of `chains` and their coins. */
function withChainChoices(commands: readonly CliCommand[], chains: readonly ChainModule[]): CliCommand[] {
  const ids = { chains: chains.map((c) => c.definition.id), coins: chains.flatMap((c) => c.definition.coins.map((coin) => coin.id)) };
  return commands.map((command) => {
    if (!Object.values(command.flags ?? {}).some((flag) => typeof flag.choices === 'string')) return command;
    const flags = Object.fromEntries(
      Object.entries(command.flags!).map(([name, flag]) => [name, typeof flag.choices === 'string' ? { ...flag, choices: ids[flag.choices] } : flag]),
    );
    return { ...command, flags };
  });
}

const commandName = (command: CliCommand) => (command.verb ? `${command.noun} ${command.verb}` : command.noun);

/** `gateway doctor` for people: one line per check, then what to do about each problem. */
function renderDoctor(report: ReadinessReport): string {
  const lines = report.checks.map(
    (c) => `${c.ok ? 'ok     ' : c.severity === 'error' ? 'ERROR  ' : 'warning'}  ${c.check}: ${c.detail}${c.fix ? `\n           fix: ${c.fix}` : ''}`,
  );
  lines.push(
    '',
    report.ready
      ? `Nothing blocks real payments${report.warnings ? ` (${report.warnings} warning(s))` : ''}.`
      : `${report.errors} problem(s) block real payments${report.warnings ? `, ${report.warnings} warning(s)` : ''}.`,
  );
  return lines.join('\n');
}

function usage(commands: readonly CliCommand[]): string {
  const lines = ['Usage: pnpm gateway <noun> <verb> [flags] [--json]', '', 'Commands:'];
  const width = Math.max(...commands.map((c) => commandName(c).length));
  for (const c of commands) lines.push(`  ${commandName(c).padEnd(width)}  ${c.summary}`);
  lines.push('', 'Run "pnpm gateway <noun> <verb> --help" for a command\'s flags. --json prints machine-readable output.');
  return lines.join('\n');
}

function commandHelp(command: CliCommand): string {
  const lines = [`Usage: pnpm gateway ${commandName(command)} [flags] [--json]`, '', command.summary, ''];
  const flags = Object.entries(command.flags ?? {});
  if (flags.length > 0) {
    lines.push('Flags:');
    for (const [name, spec] of flags) {
      const value = spec.type === 'string' ? (Array.isArray(spec.choices) ? ` <${spec.choices.join('|')}>` : ' <value>') : '';
      lines.push(`  --${name}${value}${spec.required ? ' (required)' : ''}  ${spec.description}`);
    }
  }
  lines.push('  --json  Print the result as JSON.');
  if (command.help) lines.push('', command.help);
  return lines.join('\n');
}

/** Human output: nested objects as indented `key: value` lines, arrays as numbered blocks. */
function render(value: unknown, indent = ''): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return `${indent}(none)`;
    return value.map((item, i) => `${indent}[${i + 1}]\n${render(item, `${indent}  `)}`).join('\n');
  }
  if (value && typeof value === 'object') {
    return Object.entries(value)
      .map(([k, v]) => (v && typeof v === 'object' ? `${indent}${k}:\n${render(v, `${indent}  `)}` : `${indent}${k}: ${v === null ? '-' : String(v)}`))
      .join('\n');
  }
  return `${indent}${String(value)}`;
}

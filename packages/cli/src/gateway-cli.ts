/**
 * `gateway …` as `@gw/cli` installs it: the partner commands alone, without the operator's. Its
 * overview lists them (the lines the operator CLI's `--help` shows too), `--version` prints the
 * package's version, and anything else is a usage error.
 */
import manifest from '../package.json' with { type: 'json' };
import { isPartnerCommand, PARTNER_USAGE, partnerHelpPointer, runPartnerCommand, type PartnerContext } from './partner-cli.js';

const PROGRAM = 'gateway';

/** `gateway --help`. */
export const GATEWAY_CLI_OVERVIEW = `Usage: ${PROGRAM} <command> [arguments] [credentials] [--json]

${PARTNER_USAGE}

${partnerHelpPointer(PROGRAM)} --version prints the version.`;

/** Runs `gateway <argv>`; returns the exit code: 0, 1 when the command failed, 2 for usage errors. */
export async function runGatewayCli(argv: readonly string[], context: Omit<PartnerContext, 'program'>): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    context.io.out(GATEWAY_CLI_OVERVIEW);
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-v') {
    context.io.out(manifest.version);
    return 0;
  }
  if (!isPartnerCommand(argv)) {
    const message = `unknown command "${first}" (see "${PROGRAM} --help")`;
    if (argv.includes('--json')) context.io.out(JSON.stringify({ error_code: 'usage', message }));
    else context.io.err(`error usage: ${message}`);
    return 2;
  }
  return runPartnerCommand(argv, { ...context, program: PROGRAM });
}

import { runOperatorCli, type OperatorCliOptions } from '@gw/operator-cli';
import { isPartnerCommand, PARTNER_HELP, PARTNER_USAGE, runPartnerCommand } from './partner/partner-cli.js';

export { PARTNER_HELP } from './partner/partner-cli.js';
export type { CliIo } from '@gw/operator-cli';

export interface CliOptions extends Omit<OperatorCliOptions, 'usageFooter'> {
  /** The environment config and the partner commands' credentials are read from; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Stops `gateway listen` (tests). */
  readonly stopSignal?: AbortSignal;
}

const PARTNER_FOOTER = `${PARTNER_USAGE}\n\nRun "pnpm gateway <${Object.keys(PARTNER_HELP).join('|')}> --help" for their arguments and credentials.`;

/**
 * `gateway …`: the partner commands (a merchant's, over the HTTP API with `@gw/client`) or else the
 * operator commands (`@gw/operator-cli`), whose `--help` names the partner commands too. Returns the
 * exit code: 0 on success, 1 when the command failed (error printed), 2 for usage errors.
 */
export async function runCli(argv: readonly string[], options: CliOptions): Promise<number> {
  if (isPartnerCommand(argv))
    return runPartnerCommand(argv, { io: options.io, env: options.env ?? process.env, ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}) });
  return runOperatorCli(argv, { ...options, usageFooter: PARTNER_FOOTER });
}

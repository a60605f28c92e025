import { runOperatorCli, type OperatorCliOptions } from '@gw/operator-cli';
import { isPartnerCommand, PARTNER_USAGE, partnerHelpPointer, runPartnerCommand } from '@gw/cli';

export { PARTNER_COMMANDS } from '@gw/cli';
export type { CliIo } from '@gw/operator-cli';

export interface CliOptions extends Omit<OperatorCliOptions, 'usageFooter'> {
  /** The environment config and the partner commands' credentials are read from; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Stops `gateway listen` (tests). */
  readonly stopSignal?: AbortSignal;
}

/** How the checkout runs the CLI; the partner commands' help spells their usage with it. */
const PROGRAM = 'pnpm gateway';
const PARTNER_FOOTER = `${PARTNER_USAGE}\n\n${partnerHelpPointer(PROGRAM)}`;

/**
 * `gateway …`: the partner commands (a merchant's, over the HTTP API with `@gw/client`; the code of
 * the installable `@gw/cli`) or else the operator commands (`@gw/operator-cli`), whose `--help`
 * names the partner commands too. Returns the exit code: 0 on success, 1 when the command failed
 * (error printed), 2 for usage errors.
 */
export async function runCli(argv: readonly string[], options: CliOptions): Promise<number> {
  if (isPartnerCommand(argv))
    return runPartnerCommand(argv, {
      io: options.io,
      program: PROGRAM,
      env: options.env ?? process.env,
      ...(options.stopSignal ? { stopSignal: options.stopSignal } : {}),
    });
  return runOperatorCli(argv, { ...options, usageFooter: PARTNER_FOOTER });
}

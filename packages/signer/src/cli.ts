import { readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SignedFile } from '@gw/chain-api';
import { checkCardanoPlan, signCardanoTx } from './cardano-plan.js';
import { chainOf, networkOf } from './chains.js';
import { signChallenge } from './ownership-challenge.js';
import { checkPsbtPlan, signPsbt } from './psbt-plan.js';
import { readPlan } from './read-plan.js';
import { formatReview } from './review.js';
import { parseSecret, type Secret } from './secret.js';
import { refuse, SignerError } from './signer-error.js';
import { confirm, promptHidden, readAll, type SignerIo } from './terminal.js';

export const USAGE = `gateway-signer: signs the gateway's treasury plans and wallet ownership challenges, offline.

  gateway-signer sign <plan.json> [--out <signed.json>|-] [--key-file <path> | --key-stdin]
                      [--passphrase-file <path>] [--yes]
      Checks the plan's transaction against its summary and the secret, prints every input, output
      (OWN or EXTERNAL) and the fee, asks for confirmation, and writes the signed file
      (default: <plan>.signed.json beside the plan; "-" for standard output).

  gateway-signer challenge --chain btc|ltc|ada --network <id> [--message-file <path>] [--account <n>]
                           [--key-file <path> | --key-stdin] [--passphrase-file <path>]
      Signs a wallet-registration challenge with the key of receive index 0 and prints the
      signature for "gateway wallet verify". The message comes from --message-file or standard input.

The secret (a BIP 39 mnemonic, an account xprv/tprv/Ltpv/ttpv, or a Cardano acct_xsk) is read from
--key-file, from standard input with --key-stdin, or asked on the terminal without echo. It is
never taken from a flag value or the environment. The signer opens no network connection.
`;

const KEY_OPTIONS = {
  'key-file': { type: 'string' },
  'key-stdin': { type: 'boolean' },
  'passphrase-file': { type: 'string' },
} as const;

/** Runs one command line; resolves with the exit code (0 done, 1 refused, 2 usage). */
export async function runSigner(argv: readonly string[], io: SignerIo): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === 'sign') await sign(rest, io);
    else if (command === 'challenge') await challenge(rest, io);
    else if (command === undefined || command === 'help' || command === '--help' || command === '-h') io.stdout.write(USAGE);
    else refuse('usage', `Unknown command "${command}"; see gateway-signer help.`);
    return 0;
  } catch (error) {
    if (error instanceof SignerError) {
      io.stderr.write(`gateway-signer: refused (${error.code}): ${error.message}\nNothing was signed or written.\n`);
      return error.code === 'usage' ? 2 : 1;
    }
    // parseArgs' own errors (an unknown flag, a missing value) are usage errors too.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`gateway-signer: refused (usage): ${error.message}\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`gateway-signer: failed: ${error instanceof Error ? error.message : String(error)}\nNothing was written.\n`);
    return 1;
  }
}

async function readText(path: string, what: 'plan' | 'key' | 'passphrase' | 'message'): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = what === 'plan' ? 'plan_unreadable' : what === 'message' ? 'usage' : 'secret_unreadable';
    return refuse(code, `Cannot read the ${what} file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}.`);
  }
}

/** One trailing line ending is not part of a passphrase or message written to a file by an editor or `echo`. */
const withoutFinalNewline = (text: string): string => text.replace(/\r?\n$/, '');

async function readSecret(
  values: { 'key-file'?: string; 'key-stdin'?: boolean; 'passphrase-file'?: string },
  io: SignerIo,
  stdinTaken: boolean,
): Promise<Secret> {
  if (values['key-file'] !== undefined && values['key-stdin']) refuse('usage', 'Give the secret with --key-file or --key-stdin, not both.');
  const passphrase = values['passphrase-file'] === undefined ? '' : withoutFinalNewline(await readText(values['passphrase-file'], 'passphrase'));
  let text: string;
  if (values['key-file'] !== undefined) text = await readText(values['key-file'], 'key');
  else if (values['key-stdin']) text = await readAll(io.stdin);
  else if (io.stdin.isTTY && !stdinTaken) text = await promptHidden(io, 'Mnemonic or account private key (not shown): ');
  else {
    return refuse(
      'secret_unreadable',
      'Give the secret with --key-file <path>, --key-stdin, or run on a terminal to be asked. It is never taken from a flag value or the environment.',
    );
  }
  return parseSecret(text, passphrase);
}

async function sign(args: readonly string[], io: SignerIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { ...KEY_OPTIONS, out: { type: 'string' }, yes: { type: 'boolean' } },
  });
  if (positionals.length !== 1) refuse('usage', 'sign takes one plan file: gateway-signer sign <plan.json>.');
  const planPath = positionals[0]!;
  const { plan, amounts } = readPlan(await readText(planPath, 'plan'));
  const chain = chainOf(plan.chain);
  networkOf(chain, plan.network);
  if (plan.coin !== chain.id) refuse('unsupported', `The plan moves coin "${plan.coin}"; this signer signs ${chain.name}'s own coin (${chain.id}) only.`);
  const secret = await readSecret(values, io, false);

  const checked = chain.family === 'bip84' ? checkPsbtPlan(plan, amounts, chain, secret) : checkCardanoPlan(plan, amounts, chain, secret);
  io.stderr.write(formatReview(checked.review));

  if (!values.yes) {
    if (values['key-stdin'])
      refuse('not_confirmed', 'Standard input carried the secret, so there is no terminal to confirm on; run again with --yes once you have read the above.');
    if (!io.stdin.isTTY) refuse('not_confirmed', 'Standard input is not a terminal to confirm on; run again with --yes once you have read the above.');
    if (!(await confirm(io, '\nSign this transaction? [y/N] '))) refuse('not_confirmed', 'Not confirmed.');
  }

  const signed: SignedFile = {
    format: 'gateway-treasury-signed',
    version: 1,
    plan_id: plan.plan_id,
    chain: plan.chain,
    network: plan.network,
    signed: 'psbt' in checked ? signPsbt(checked) : signCardanoTx(checked),
  };
  const json = `${JSON.stringify(signed, null, 2)}\n`;
  if (values.out === '-') {
    io.stdout.write(json);
    io.stderr.write(`Signed transaction ${checked.review.txid}.\n`);
    return;
  }
  const out = values.out ?? join(dirname(planPath), `${basename(planPath).replace(/\.json$/i, '')}.signed.json`);
  // Written beside and renamed: a reader never sees half a file.
  const partial = `${out}.partial`;
  await writeFile(partial, json, { mode: 0o644 });
  await rename(partial, out);
  io.stderr.write(`Signed transaction ${checked.review.txid}; wrote ${out}.\n`);
}

async function challenge(args: readonly string[], io: SignerIo): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    allowPositionals: false,
    options: { ...KEY_OPTIONS, chain: { type: 'string' }, network: { type: 'string' }, 'message-file': { type: 'string' }, account: { type: 'string' } },
  });
  if (!values.chain || !values.network) refuse('usage', 'challenge needs --chain btc|ltc|ada and --network <id>.');
  const chain = chainOf(values.chain, 'usage');
  networkOf(chain, values.network);
  let account: number | undefined;
  if (values.account !== undefined) {
    if (!/^\d{1,9}$/.test(values.account)) refuse('usage', '--account is an account number (0, 1, …).');
    account = Number(values.account);
  }
  let message: string;
  let stdinTaken = false;
  if (values['message-file'] !== undefined) message = await readText(values['message-file'], 'message');
  else if (values['key-stdin']) return refuse('usage', 'Standard input carries the secret; give the challenge with --message-file.');
  else if (!io.stdin.isTTY) {
    message = await readAll(io.stdin);
    stdinTaken = true;
  } else return refuse('usage', 'Give the challenge with --message-file <path> or on standard input.');
  message = withoutFinalNewline(message);
  if (message.length === 0) refuse('usage', 'The challenge message is empty.');
  const secret = await readSecret(values, io, stdinTaken);
  const signed = signChallenge(chain, values.network, secret, account, message);
  io.stderr.write(`Signed the challenge with receive index 0, ${signed.address} (${signed.path}).\n`);
  io.stdout.write(`${signed.signature}\n`);
}

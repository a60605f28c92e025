import { link, lstat, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import type { SignedFile } from '@gw/chain-api';
import { accountChainOf, checkAccountNetwork } from './account-chains.js';
import { parseAccountSecret } from './account-keys.js';
import { isAccountPlan, readAccountPlan } from './account-plan.js';
import { formatAccountReview } from './account-review.js';
import { checkAccountPlan, signAccountPlan } from './account-sign.js';
import { checkCardanoPlan, signCardanoTx } from './cardano-plan.js';
import { chainOf, networkOf } from './chains.js';
import { checkChallengeText, signChallenge } from './ownership-challenge.js';
import { printable } from './printable.js';
import { checkPsbtPlan, signPsbt } from './psbt-plan.js';
import { readPlan } from './read-plan.js';
import { formatReview } from './review.js';
import { parseSecret, type Secret } from './secret.js';
import { refuse, SignerError } from './signer-error.js';
import { confirm, promptHidden, readAll, type SignerIo } from './terminal.js';

export const USAGE = `gateway-signer: signs the gateway's treasury plans and wallet ownership challenges, offline.

  gateway-signer sign <plan.json> [--out <signed.json>|-] [--force] [--key-file <path> | --key-stdin]
                      [--passphrase-file <path> | --passphrase-prompt] [--yes] [--allow-unlisted-token <contract>]...
      Checks the plan's transaction against its summary and the secret, prints every input, output
      (OWN or EXTERNAL) and the fee, asks for confirmation, and writes the signed file
      (default: <plan>.signed.json beside the plan; "-" for standard output). An existing file is
      not replaced without --force. An account plan (EVM, TRON, TON steps of one signing round) is
      checked step by step (each signer's key derived at its path, each step's data against its
      summary), every step shown with its recipients (OWN or EXTERNAL), and every step signed.
      A token transfer must go through the signer's own listed contract (TON: jetton master) of the
      plan's coin; a coin it lists none for on that network (an operator's own test token) is
      signed only with --allow-unlisted-token naming that contract (repeatable).

  gateway-signer challenge --chain btc|ltc|ada --network <id> [--message-file <path>] [--account <n>]
                           [--key-file <path> | --key-stdin] [--passphrase-file <path> | --passphrase-prompt]
                           [--yes]
      Signs a gateway wallet-ownership challenge (and nothing else) with the key of receive index 0
      and prints the signature for "gateway wallet verify", after showing the challenge and asking
      for confirmation (or --yes). The message comes from --message-file or standard input.

The secret (a BIP 39 mnemonic, an account xprv/tprv/Ltpv/ttpv, a Cardano acct_xsk, or for TON a TON
wallet's 24-word mnemonic) is read from
--key-file, from standard input with --key-stdin, or asked on the terminal without echo; a BIP 39
passphrase from --passphrase-file or asked without echo with --passphrase-prompt. They are never
taken from a flag value or the environment. The signer opens no network connection.
`;

const KEY_OPTIONS = {
  'key-file': { type: 'string' },
  'key-stdin': { type: 'boolean' },
  'passphrase-file': { type: 'string' },
  'passphrase-prompt': { type: 'boolean' },
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
      io.stderr.write(`gateway-signer: refused (${error.code}): ${printable(error.message)}\nNothing was signed or written.\n`);
      return error.code === 'usage' ? 2 : 1;
    }
    // parseArgs' own errors (an unknown flag, a missing value) are usage errors too.
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`gateway-signer: refused (usage): ${printable(error.message)}\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`gateway-signer: failed: ${printable(error instanceof Error ? error.message : String(error))}\nNothing was written.\n`);
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

type KeyValues = { 'key-file'?: string; 'key-stdin'?: boolean; 'passphrase-file'?: string; 'passphrase-prompt'?: boolean };

async function readSecret(values: KeyValues, io: SignerIo, stdinTaken: boolean): Promise<Secret> {
  const { text, passphrase } = await readSecretText(values, io, stdinTaken);
  return parseSecret(text, passphrase);
}

/** The secret's text and passphrase, from where the options say. */
async function readSecretText(values: KeyValues, io: SignerIo, stdinTaken: boolean): Promise<{ text: string; passphrase: string }> {
  if (values['key-file'] !== undefined && values['key-stdin']) refuse('usage', 'Give the secret with --key-file or --key-stdin, not both.');
  if (values['passphrase-file'] !== undefined && values['passphrase-prompt'])
    refuse('usage', 'Give the passphrase with --passphrase-file or --passphrase-prompt, not both.');
  if (values['passphrase-prompt'] && (values['key-stdin'] || stdinTaken || !io.stdin.isTTY)) {
    refuse('usage', '--passphrase-prompt asks on the terminal: standard input must be a terminal, not carry the secret or the message.');
  }
  let passphrase = values['passphrase-file'] === undefined ? '' : withoutFinalNewline(await readText(values['passphrase-file'], 'passphrase'));
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
  if (values['passphrase-prompt']) passphrase = await promptHidden(io, 'BIP 39 passphrase (not shown): ');
  return { text, passphrase };
}

async function sign(args: readonly string[], io: SignerIo): Promise<void> {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: {
      ...KEY_OPTIONS,
      out: { type: 'string' },
      yes: { type: 'boolean' },
      force: { type: 'boolean' },
      'allow-unlisted-token': { type: 'string', multiple: true },
    },
  });
  if (positionals.length !== 1) refuse('usage', 'sign takes one plan file: gateway-signer sign <plan.json>.');
  const planPath = positionals[0]!;
  const out = values.out === '-' ? null : (values.out ?? join(dirname(planPath), `${basename(planPath).replace(/\.json$/i, '')}.signed.json`));
  // Told before the secret is asked; checked again when the file is put in place.
  if (out !== null && !values.force && (await exists(out)))
    refuse('output_exists', `${out} exists; give another --out, remove it, or replace it with --force.`);
  const planText = await readText(planPath, 'plan');
  if (isAccountPlan(parsedOrNull(planText))) return signAccount(parsedOrNull(planText), out, values, io);
  const { plan, amounts } = readPlan(planText);
  const chain = chainOf(plan.chain);
  networkOf(chain, plan.network);
  if (plan.coin !== chain.id) refuse('unsupported', `The plan moves coin "${plan.coin}"; this signer signs ${chain.name}'s own coin (${chain.id}) only.`);
  const secret = await readSecret(values, io, false);

  const checked = chain.family === 'bip84' ? checkPsbtPlan(plan, amounts, chain, secret) : checkCardanoPlan(plan, amounts, chain, secret);
  io.stderr.write(formatReview(checked.review));

  await confirmOrYes(io, values, false, '\nSign this transaction? [y/N] ');

  const signed: SignedFile = {
    format: 'gateway-treasury-signed',
    version: 1,
    plan_id: plan.plan_id,
    chain: plan.chain,
    network: plan.network,
    signed: 'psbt' in checked ? signPsbt(checked) : signCardanoTx(checked),
  };
  const json = `${JSON.stringify(signed, null, 2)}\n`;
  if (out === null) {
    io.stdout.write(json);
    io.stderr.write(`Signed transaction ${checked.review.txid}.\n`);
    return;
  }
  await writeNew(out, json, values.force === true);
  io.stderr.write(`${printable(`Signed transaction ${checked.review.txid}; wrote ${out}.`)}\n`);
}

function parsedOrNull(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Signs an account plan (EVM, TRON, TON steps of one signing round): checks every step, shows them, asks, writes the signed file. */
async function signAccount(
  value: unknown,
  out: string | null,
  values: KeyValues & { yes?: boolean; force?: boolean; 'allow-unlisted-token'?: string[] },
  io: SignerIo,
): Promise<void> {
  // The plan's shape and chain are checked before the secret is asked.
  const { plan } = readAccountPlan(value);
  checkAccountNetwork(accountChainOf(plan.chain), plan.network, plan.evm_chain_id);
  const { text, passphrase } = await readSecretText(values, io, false);
  const checked = checkAccountPlan(value, await parseAccountSecret(text, passphrase), { allowUnlistedTokens: values['allow-unlisted-token'] ?? [] });
  io.stderr.write(formatAccountReview(checked));
  await confirmOrYes(io, values, false, `\nSign these ${checked.steps.length} steps? [y/N] `);
  const json = `${JSON.stringify(signAccountPlan(checked), null, 2)}\n`;
  const what = `Signed ${checked.steps.length} steps of plan ${plan.plan_id} (round ${plan.round})`;
  if (out === null) {
    io.stdout.write(json);
    io.stderr.write(`${printable(what)}.\n`);
    return;
  }
  await writeNew(out, json, values.force === true);
  io.stderr.write(`${printable(`${what}; wrote ${out}.`)}\n`);
}

/**
 * The confirmation: `--yes`, or "y" at the terminal. Without a terminal to ask on (standard input
 * carried the secret or the message, or is not a terminal) only `--yes` confirms.
 */
async function confirmOrYes(io: SignerIo, values: { yes?: boolean; 'key-stdin'?: boolean }, stdinTaken: boolean, question: string): Promise<void> {
  if (values.yes) return;
  if (values['key-stdin'])
    refuse('not_confirmed', 'Standard input carried the secret, so there is no terminal to confirm on; run again with --yes once you have read the above.');
  if (stdinTaken)
    refuse('not_confirmed', 'Standard input carried the message, so there is no terminal to confirm on; run again with --yes once you have read the above.');
  if (!io.stdin.isTTY) refuse('not_confirmed', 'Standard input is not a terminal to confirm on; run again with --yes once you have read the above.');
  if (!(await confirm(io, question))) refuse('not_confirmed', 'Not confirmed.');
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes `text` to `path` without following a link anyone put in the way, and so that a reader
 * never sees half a file: a new file of a random name beside it (created exclusively, O_EXCL,
 * mode 0600: it cannot be a link planted there), then put in place. Without `force` it is linked
 * to `path`, which fails if anything (a file, a link) is there; with `force` it is renamed over it,
 * which replaces a link itself, never its target.
 */
async function writeNew(path: string, text: string, force: boolean): Promise<void> {
  const random = Buffer.from(globalThis.crypto.getRandomValues(new Uint8Array(12))).toString('hex');
  const temporary = join(dirname(path), `.${basename(path)}.${random}.partial`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    if (force) {
      await rename(temporary, path);
      return;
    }
    try {
      await link(temporary, path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        refuse('output_exists', `${path} exists; give another --out, remove it, or replace it with --force.`);
      throw error;
    }
    await unlink(temporary);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

async function challenge(args: readonly string[], io: SignerIo): Promise<void> {
  const { values } = parseArgs({
    args: [...args],
    allowPositionals: false,
    options: {
      ...KEY_OPTIONS,
      chain: { type: 'string' },
      network: { type: 'string' },
      'message-file': { type: 'string' },
      account: { type: 'string' },
      yes: { type: 'boolean' },
    },
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
  const challenge = checkChallengeText(message, chain.id);
  const secret = await readSecret(values, io, stdinTaken);
  io.stderr.write(
    `${printable(`The gateway's wallet-ownership challenge for project ${challenge.project}, chain ${challenge.chain}, key ${challenge.key}, expires ${challenge.expires}:`)}\n` +
      `  ${printable(message)}\n`,
  );
  await confirmOrYes(io, values, stdinTaken, '\nSign this challenge? [y/N] ');
  const signed = signChallenge(chain, values.network, secret, account, message);
  io.stderr.write(`Signed the challenge with receive index 0, ${signed.address} (${signed.path}).\n`);
  io.stdout.write(`${signed.signature}\n`);
}

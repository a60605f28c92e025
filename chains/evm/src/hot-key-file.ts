import { readFileSync, statSync } from 'node:fs';
import { Wallet } from 'ethers';

/** A gas wallet key file: 0x and 64 hex digits (surrounding whitespace ignored). */
const KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;

/**
 * Reads and checks the key file of a hot wallet that holds gas money only (the treasury's hot gas
 * wallet, x402's settlement gas wallets); its content never reaches an error or a log (a malformed
 * key makes ethers throw with the whole text). `label` names the wallet in messages ('hot gas
 * wallet' unless given, 'x402 gas wallet'…); `warn` hears of a file its group or others may read.
 */
export function readHotGasKey(file: string, options: { readonly label?: string; readonly warn?: (message: string) => void } = {}): Wallet {
  const what = `The ${options.label ?? 'hot gas wallet'} key file ${file}`;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`${what} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  if (!KEY_PATTERN.test(text)) throw new Error(`${what} is not a private key (0x and 64 hex digits).`);
  let wallet: Wallet;
  try {
    wallet = new Wallet(text);
  } catch {
    throw new Error(`${what} is not a valid secp256k1 private key.`);
  }
  if (options.warn && (statSync(file).mode & 0o077) !== 0) options.warn(`${what} may be read by its group or others (chmod 600 it).`);
  return wallet;
}

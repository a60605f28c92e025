// TEMPORARY: a copy of the treasury's readHotGasKey until the "chain" helper's move of it to
// @gw/chain-evm (chains/evm/src/hot-key-file.ts) is merged; then this file goes.
import { readFileSync, statSync } from 'node:fs';
import { Wallet } from 'ethers';

const KEY_PATTERN = /^0x[0-9a-fA-F]{64}$/;

export function readHotGasKey(file: string, warn?: (message: string) => void): Wallet {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new Error(`The hot gas wallet key file ${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
  }
  if (!KEY_PATTERN.test(text)) throw new Error(`The hot gas wallet key file ${file} is not a private key (0x and 64 hex digits).`);
  try {
    const wallet = new Wallet(text);
    if (warn && (statSync(file).mode & 0o077) !== 0) warn(`The hot gas wallet key file ${file} may be read by its group or others (chmod 600 it).`);
    return wallet;
  } catch {
    throw new Error(`The hot gas wallet key file ${file} is not a valid secp256k1 private key.`);
  }
}

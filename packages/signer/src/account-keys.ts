import { keyPairFromSeed, mnemonicToPrivateKey, mnemonicValidate } from '@ton/crypto';
import { mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import { computeHmac, SigningKey } from 'ethers/crypto';
import { getBytes } from 'ethers/utils';
import { parseSecret } from './secret.js';
import { refuse } from './signer-error.js';

/**
 * The secret of an account plan: a BIP 39 mnemonic (EVM and TRON keys by BIP 32, TON and Solana by SLIP-10),
 * or a TON wallet's own 24-word mnemonic (Tonkeeper, MyTonWallet: `@ton/crypto` `mnemonicToPrivateKey`).
 * A 24-word BIP 39 mnemonic can also be a valid TON mnemonic; then both TON keys are candidates and
 * the one whose wallet is the step's signer signs.
 */
export interface AccountSecret {
  /** The BIP 39 seed, when the words are a BIP 39 mnemonic. */
  readonly seed: Uint8Array | null;
  /** The TON mnemonic's ed25519 key, when the words are a TON mnemonic (without a passphrase). */
  readonly tonMnemonicKey: { readonly publicKey: Buffer; readonly secretKey: Buffer } | null;
}

/** Parses the secret of an account plan; refuses an account private key (account plans are signed from the mnemonic). */
export async function parseAccountSecret(text: string, passphrase: string): Promise<AccountSecret> {
  const words = text.trim().toLowerCase().split(/\s+/);
  const mnemonic = words.join(' ');
  const bip39 = /^[a-z]+(?: [a-z]+)+$/.test(mnemonic) && validateMnemonic(mnemonic, wordlist);
  const ton = words.length === 24 && passphrase.length === 0 && (await mnemonicValidate(words));
  if (!bip39 && !ton) {
    // The existing parser gives the precise refusal (word count, checksum, an account key).
    const secret = parseSecret(text, passphrase);
    if (secret.kind !== 'mnemonic') refuse('wrong_key', 'Account plans (EVM, TRON, TON) are signed with the mnemonic, not an account private key.');
  }
  return {
    seed: bip39 ? mnemonicToSeedSync(mnemonic, passphrase) : null,
    tonMnemonicKey: ton ? await mnemonicToPrivateKey(words) : null,
  };
}

const bip32 = BIP32Factory(ecc);

/** A BIP 32 path of hardened and soft components, `m/44'/60'/0'/0/5`, as numbers (hardened ones ≥ 2^31). */
export function parsePath(path: string, where: string): number[] {
  if (typeof path !== 'string' || !/^m(?:\/\d{1,10}'?)+$/.test(path))
    refuse('plan_unreadable', `${where}: "${String(path)}" is not a derivation path (m/44'/60'/0'/0/0).`);
  return path
    .split('/')
    .slice(1)
    .map((part) => {
      const n = Number(part.replace("'", ''));
      if (n >= 0x80000000) refuse('plan_unreadable', `${where}: ${part} is out of range.`);
      return part.endsWith("'") ? n + 0x80000000 : n;
    });
}

/**
 * The secp256k1 key at a `m/44'/<coin>'/<account>'/<branch>/<index>` path (EVM coin 60, TRON 195,
 * on every network, as the chain packages derive), from the BIP 39 seed.
 */
export function secp256k1KeyAt(secret: AccountSecret, path: string, coinType: 60 | 195, where: string): SigningKey {
  const parts = parsePath(path, where);
  const H = 0x80000000;
  if (parts.length !== 5 || parts[0] !== 44 + H || parts[1] !== coinType + H || parts[2]! < H || parts[3]! >= H || parts[4]! >= H) {
    refuse('plan_unreadable', `${where}: ${path} is not a path m/44'/${coinType}'/account'/branch/index.`);
  }
  if (!secret.seed) refuse('wrong_key', `${where}: the secret is a TON mnemonic; ${coinType === 60 ? 'EVM' : 'TRON'} keys derive from a BIP 39 mnemonic.`);
  const node = bip32.fromSeed(secret.seed).derivePath(path);
  return new SigningKey(node.privateKey!);
}

/** SLIP-10 ed25519 derivation (hardened components only) from a BIP 39 seed: the private key seed at `path`. */
export function slip10Ed25519(seed: Uint8Array, path: readonly number[]): Uint8Array {
  let I = getBytes(computeHmac('sha512', new TextEncoder().encode('ed25519 seed'), seed));
  for (const index of path) {
    if (index < 0x80000000) refuse('plan_unreadable', 'ed25519 (SLIP-10) paths are hardened in every component.');
    const data = new Uint8Array(37);
    data.set(I.subarray(0, 32), 1);
    new DataView(data.buffer).setUint32(33, index);
    I = getBytes(computeHmac('sha512', I.subarray(32), data));
  }
  return I.subarray(0, 32);
}

/**
 * The ed25519 key of a Solana step at `m/44'/<501>'/<account>'/0'` (every component hardened): the
 * SLIP-10 key of the BIP 39 seed, as Phantom, Solflare and the Solana CLI (`solana-keygen` with
 * `prompt://?key=<account>/0`) derive account `<account>`.
 */
export function solKeyAt(secret: AccountSecret, path: string, where: string): { publicKey: Buffer; secretKey: Buffer } {
  const parts = parsePath(path, where);
  const H = 0x80000000;
  if (parts.length !== 4 || parts[0] !== 44 + H || parts[1] !== 501 + H || parts[3] !== H || parts.some((p) => p < H)) {
    refuse('plan_unreadable', `${where}: ${path} is not a Solana path m/44'/501'/account'/0'.`);
  }
  if (!secret.seed) refuse('wrong_key', `${where}: Solana keys derive from a BIP 39 mnemonic, not a TON mnemonic.`);
  return keyPairFromSeed(Buffer.from(slip10Ed25519(secret.seed, parts)));
}

/**
 * The candidate ed25519 keys of a TON step at `m/44'/607'/<account>'/<subwallet>'`: the SLIP-10 key
 * at `m/44'/607'/<account>'` of a BIP 39 seed, and, for account 0, the TON mnemonic's own key. The
 * last component is the V5R1 subwallet number, not a derivation (chains/ton README).
 */
export function tonKeysAt(
  secret: AccountSecret,
  path: string,
  where: string,
): { subwallet: number; keys: { publicKey: Buffer; secretKey: Buffer; origin: string }[] } {
  const parts = parsePath(path, where);
  const H = 0x80000000;
  if (parts.length !== 4 || parts[0] !== 44 + H || parts[1] !== 607 + H || parts.some((p) => p < H)) {
    refuse('plan_unreadable', `${where}: ${path} is not a TON path m/44'/607'/account'/subwallet'.`);
  }
  const subwallet = parts[3]! - H;
  if (subwallet > 0x7fff) refuse('plan_unreadable', `${where}: V5R1 subwallet numbers are 15-bit; ${subwallet} is out of range.`);
  const keys: { publicKey: Buffer; secretKey: Buffer; origin: string }[] = [];
  if (secret.seed) {
    const account = `m/44'/607'/${parts[2]! - H}'`;
    keys.push({ ...keyPairFromSeed(Buffer.from(slip10Ed25519(secret.seed, parts.slice(0, 3)))), origin: `SLIP-10 ${account} of the BIP 39 seed` });
  }
  if (secret.tonMnemonicKey && parts[2] === H) keys.push({ ...secret.tonMnemonicKey, origin: 'the TON mnemonic' });
  return { subwallet, keys };
}

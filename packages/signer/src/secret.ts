import { mnemonicToEntropy, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english';
import { bech32 } from 'bech32';
import bs58check from 'bs58check';
import { refuse } from './signer-error.js';

/**
 * What the operator gave the signer to sign with. Parsed once; never printed, never written.
 *
 * - `mnemonic`: a BIP 39 English mnemonic (12–24 words) and its optional passphrase. Bitcoin and
 *   Litecoin derive from its BIP 39 seed (BIP 32), Cardano from its entropy (CIP-3 Icarus, CIP-1852).
 * - `bip32-account`: an account-level extended private key (xprv/tprv/zprv/vprv, Litecoin
 *   Ltpv/ttpv): the 78 serialized bytes; the chain decides which versions it accepts.
 * - `cardano-account`: a CIP-1852 account private key, bech32 `acct_xsk1…` (96 bytes: extended
 *   secret key and chain code, or 128 with the public key as `to_128_xprv` writes them).
 */
export type Secret =
  | { readonly kind: 'mnemonic'; readonly mnemonic: string; readonly passphrase: string }
  | { readonly kind: 'bip32-account'; readonly payload: Uint8Array; readonly version: number }
  | { readonly kind: 'cardano-account'; readonly bytes: Uint8Array };

/** Words of a mnemonic: letters separated by any white space. */
const WORDS = /^[a-z]+(?:\s+[a-z]+)+$/;

/** Parses the secret's text (trimmed); refuses with `secret_unreadable` without echoing it. */
export function parseSecret(text: string, passphrase: string): Secret {
  const trimmed = text.trim();
  if (trimmed.length === 0) refuse('secret_unreadable', 'The secret is empty.');
  const lower = trimmed.toLowerCase();
  if (WORDS.test(lower)) {
    const mnemonic = lower.split(/\s+/).join(' ');
    const count = mnemonic.split(' ').length;
    if (![12, 15, 18, 21, 24].includes(count)) refuse('secret_unreadable', `A BIP 39 mnemonic has 12, 15, 18, 21 or 24 words, not ${count}.`);
    if (!validateMnemonic(mnemonic, wordlist)) {
      refuse('secret_unreadable', 'The words are not a valid BIP 39 English mnemonic (an unknown word, or the checksum does not match).');
    }
    return { kind: 'mnemonic', mnemonic, passphrase };
  }
  if (passphrase.length > 0) refuse('usage', 'A passphrase goes with a mnemonic; an account private key takes none.');
  if (lower.startsWith('acct_xsk1')) {
    const decoded = bech32.decodeUnsafe(lower, 1000);
    const bytes = decoded && bech32.fromWordsUnsafe(decoded.words);
    if (!decoded || !bytes || decoded.prefix !== 'acct_xsk' || (bytes.length !== 96 && bytes.length !== 128)) {
      refuse('secret_unreadable', 'The acct_xsk key is not valid bech32 of a 96-byte Cardano account key.');
    }
    return { kind: 'cardano-account', bytes: Uint8Array.from(bytes) };
  }
  if (/^(?:root_xsk1|xprv1|acct_xvk1|xpub1)/.test(lower)) {
    refuse('secret_unreadable', "Give a Cardano mnemonic or the account private key at m/1852'/1815'/account' (acct_xsk1…).");
  }
  // Extended keys are 111 characters; the bound keeps base58's quadratic decode away from long input.
  const payload = trimmed.length <= 120 ? bs58check.decodeUnsafe(trimmed) : undefined;
  if (payload && payload.length === 78) {
    return { kind: 'bip32-account', payload: Uint8Array.from(payload), version: new DataView(payload.buffer, payload.byteOffset).getUint32(0) };
  }
  return refuse('secret_unreadable', 'The secret is neither a BIP 39 mnemonic nor an account private key (xprv/tprv/Ltpv/ttpv, acct_xsk).');
}

/** The BIP 39 seed of a mnemonic secret (BIP 32 chains). */
export function seedOf(secret: Extract<Secret, { kind: 'mnemonic' }>): Uint8Array {
  return mnemonicToSeedSync(secret.mnemonic, secret.passphrase);
}

/** The BIP 39 entropy of a mnemonic secret (Cardano's Icarus master key). */
export function entropyOf(secret: Extract<Secret, { kind: 'mnemonic' }>): Uint8Array {
  return mnemonicToEntropy(secret.mnemonic, wordlist);
}

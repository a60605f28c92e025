import { chainErrors, type NetworkKind } from '@gw/chain-api';
import { randomBytes } from 'node:crypto';
import bs58check from 'bs58check';
import { HDNodeWallet } from 'ethers';

/**
 * BIP32 extended public keys for secp256k1 account-model chains (EVM, TRON). Parsing is strict:
 * base58check with a verified checksum (ethers' own `fromExtendedKey` skips the checksum for some
 * inputs), xpub/tpub versions only, depth 3, hardened child index (an account key).
 */

const XPUB = 0x0488b21e;
const TPUB = 0x043587cf;
const PRIVATE = new Set([0x0488ade4, 0x04358394, 0x049d7878, 0x04b2430c, 0x044a4e28, 0x045f18bc]);
const HARDENED = 0x80000000;

export interface ParsedAccountXpub {
  /** The key re-serialised with the xpub version bytes. */
  readonly canonical: string;
  /** Account number from the key's hardened child index. */
  readonly account: number;
}

/**
 * Validates an account-level secp256k1 extended public key (BIP44 depth 3). Account-model chains
 * use the same address format on mainnet and testnets, so xpub and tpub serialisations are both
 * accepted for either network kind and normalised to the xpub form; `network` only shapes messages.
 */
export function parseAccountXpub(input: string, network: NetworkKind, coinType: number): ParsedAccountXpub {
  // Extended keys are 111 characters; the bound keeps base58's quadratic decode away from long input.
  const payload = input.length <= 120 ? bs58check.decodeUnsafe(input) : undefined;
  if (!payload || payload.length !== 78) {
    throw chainErrors.invalid_xpub_format({ message: 'Not a base58check-encoded BIP32 extended public key.' });
  }
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const version = view.getUint32(0);
  if (PRIVATE.has(version)) {
    throw chainErrors.invalid_xpub_format({ message: 'This is a private extended key; supply the account public key (xpub) only.' });
  }
  if (version !== XPUB && version !== TPUB) {
    throw chainErrors.invalid_xpub_format({ message: 'Unsupported extended key version; expected an xpub (or tpub).' });
  }
  const depth = payload[4]!;
  if (depth !== 3) {
    throw chainErrors.invalid_xpub_format({
      message: `The key is at depth ${depth}; export the account-level key at m/44'/${coinType}'/0' (depth 3) for ${network}.`,
    });
  }
  const index = view.getUint32(9);
  if (index < HARDENED) {
    throw chainErrors.invalid_xpub_format({ message: `The key is not a hardened account key (m/44'/${coinType}'/account').` });
  }
  const key = payload.subarray(45, 78);
  if (key[0] !== 0x02 && key[0] !== 0x03) {
    throw chainErrors.invalid_xpub_format({ message: 'The extended key does not hold a compressed public key.' });
  }
  const neutral = new Uint8Array(payload);
  new DataView(neutral.buffer).setUint32(0, XPUB);
  return { canonical: bs58check.encode(neutral), account: index - HARDENED };
}

/** A fresh BIP32 account key at `accountPath` (random seed), as the xpub `parseAccountXpub` accepts. */
export function generateAccountXpub(accountPath: string): string {
  return HDNodeWallet.fromSeed(randomBytes(32)).derivePath(accountPath).neuter().extendedKey;
}

import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import { chainErrors } from '@gw/chain-api';
import { compactSize } from './compact-size.js';

/**
 * Verifies a legacy (BIP-137) compact message signature for a P2WPKH witness program: the 65-byte
 * base64 signature is recovered to a compressed public key over the chain's message hash
 * (double SHA-256 of `prefix`, the message length as a Bitcoin varint, and the message, as
 * bitcoinjs-message and Electrum compute it), and its HASH160 must equal `program`. Headers 31–42
 * (compressed key, flagged P2PKH, P2SH-P2WPKH or P2WPKH) are accepted: the key decides, not the
 * flag. Returns false for a well-formed signature by another key; throws `validation_error` for
 * one that cannot be parsed or recovered.
 */
export function verifyBip137(message: string, signatureBase64: string, prefix: string, program: Uint8Array): boolean {
  const signature = Buffer.from(signatureBase64, 'base64');
  if (signature.length !== 65) throw chainErrors.validation_error({ message: 'A BIP-137 signature is 65 bytes (base64).' });
  const header = signature[0]!;
  if (header < 31 || header > 42) {
    throw chainErrors.validation_error({ message: 'The BIP-137 signature is not by a compressed key, which a native segwit address needs.' });
  }
  const recovery = ((header - 27) & 3) as 0 | 1 | 2 | 3;
  const hash = messageHash(message, prefix);
  let publicKey: Uint8Array | null;
  try {
    publicKey = ecc.recover(hash, signature.subarray(1), recovery, true);
  } catch (cause) {
    throw chainErrors.validation_error({ message: 'The BIP-137 signature could not be recovered to a public key.', cause });
  }
  if (!publicKey) return false;
  return Buffer.from(bitcoin.crypto.hash160(publicKey)).equals(Buffer.from(program));
}

function messageHash(message: string, prefix: string): Uint8Array {
  const text = Buffer.from(message, 'utf8');
  return bitcoin.crypto.hash256(Buffer.concat([Buffer.from(prefix, 'utf8'), compactSize(text.length), text]));
}

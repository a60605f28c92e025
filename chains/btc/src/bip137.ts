import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import { chainErrors } from '@gw/chain-api';
import { compactSize } from './compact-size.js';

/**
 * Verifies a legacy (BIP-137) compact message signature for the address whose output script is
 * `outputScript`: the 65-byte base64 signature is recovered to a public key over the chain's
 * message hash (double SHA-256 of `prefix`, the message length as a Bitcoin varint, and the
 * message, as bitcoinjs-message and Electrum compute it), and the script must be one that key
 * controls: P2PKH of the key as recovered (headers 27–30 uncompressed, 31–34 compressed), or, for a
 * compressed key, P2SH-P2WPKH or P2WPKH. Headers 27–42 are accepted and the key decides, not the
 * flag (wallets disagree on flags; Electrum flags segwit signatures as P2PKH). Returns false for a
 * well-formed signature by another key; throws `validation_error` for one that cannot be parsed or
 * recovered.
 */
export function verifyBip137(message: string, signatureBase64: string, prefix: string, outputScript: Uint8Array): boolean {
  const signature = Buffer.from(signatureBase64, 'base64');
  if (signature.length !== 65) throw chainErrors.validation_error({ message: 'A BIP-137 signature is 65 bytes (base64).' });
  const header = signature[0]!;
  if (header < 27 || header > 42) throw chainErrors.validation_error({ message: `Not a BIP-137 signature header: ${header}.` });
  const compressed = header >= 31;
  const recovery = ((header - 27) & 3) as 0 | 1 | 2 | 3;
  const hash = messageHash(message, prefix);
  let publicKey: Uint8Array | null;
  try {
    publicKey = ecc.recover(hash, signature.subarray(1), recovery, compressed);
  } catch (cause) {
    throw chainErrors.validation_error({ message: 'The BIP-137 signature could not be recovered to a public key.', cause });
  }
  if (!publicKey) return false;
  const keyHash = bitcoin.crypto.hash160(publicKey);
  const scripts = [bitcoin.payments.p2pkh({ hash: keyHash }).output!];
  if (compressed) {
    const p2wpkh = bitcoin.payments.p2wpkh({ hash: keyHash });
    scripts.push(p2wpkh.output!, bitcoin.payments.p2sh({ redeem: p2wpkh }).output!);
  }
  const expected = Buffer.from(outputScript);
  return scripts.some((script) => expected.equals(Buffer.from(script)));
}

function messageHash(message: string, prefix: string): Uint8Array {
  const text = Buffer.from(message, 'utf8');
  return bitcoin.crypto.hash256(Buffer.concat([Buffer.from(prefix, 'utf8'), compactSize(text.length), text]));
}

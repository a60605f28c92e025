import { createPublicKey, verify } from 'node:crypto';
import { chainErrors } from '@gw/chain-api';
import { getBase58Encoder } from '@solana/kit';
import { addressBytes, isSolAddress } from './address.js';

/** DER prefix of an ed25519 SubjectPublicKeyInfo (RFC 8410): what node:crypto takes a raw 32-byte key in. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const HEX_SIGNATURE = /^[0-9a-fA-F]{128}$/;
const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]+$/;
const BASE64_TEXT = /^[A-Za-z0-9+/]{86}(?:==)?$/;

/**
 * The 64 bytes of an ed25519 signature as wallets hand it over: base58 (what dapps make of
 * Phantom's and Solflare's `signMessage` bytes, like transaction signatures), base64, or 128 hex
 * digits. Throws `validation_error` for anything else.
 */
export function parseSignature(text: string): Uint8Array {
  const trimmed = typeof text === 'string' ? text.trim() : '';
  let bytes: Uint8Array | undefined;
  if (HEX_SIGNATURE.test(trimmed)) bytes = Buffer.from(trimmed, 'hex');
  else if (trimmed.length <= 90 && BASE58_TEXT.test(trimmed)) bytes = new Uint8Array(getBase58Encoder().encode(trimmed));
  if ((bytes === undefined || bytes.length !== 64) && BASE64_TEXT.test(trimmed)) bytes = Buffer.from(trimmed, 'base64');
  if (bytes === undefined || bytes.length !== 64) {
    throw chainErrors.validation_error({ message: 'A Solana signature is 64 bytes, as base58, base64 or 128 hex digits (the bytes of signMessage).' });
  }
  return bytes;
}

/**
 * Whether `signature` is the ed25519 signature of the UTF-8 bytes of `message`, exactly as
 * Phantom's and Solflare's `signMessage` sign them (no prefix, no envelope), by the key whose public
 * half is `address`. Throws `validation_error` for an unparseable signature or address.
 */
export function verifyMessageSignature(address: string, message: string, signature: string): boolean {
  const bytes = parseSignature(signature);
  if (!isSolAddress(address)) throw chainErrors.validation_error({ message: `${JSON.stringify(String(address).slice(0, 64))} is no Solana address.` });
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, addressBytes(address)]), format: 'der', type: 'spki' });
  try {
    return verify(null, Buffer.from(message, 'utf8'), key, bytes);
  } catch {
    // A program-derived address is no point on the curve: nobody signs for it.
    return false;
  }
}

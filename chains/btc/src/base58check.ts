import { createHash } from 'node:crypto';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, BigInt(i)]));

function sha256d(data: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(data).digest()).digest();
}

/** Decodes a base58check string; returns undefined for bad characters or a bad checksum. */
export function base58checkDecode(input: string): Buffer | undefined {
  if (input.length === 0 || input.length > 200) return undefined;
  let n = 0n;
  for (const c of input) {
    const v = INDEX.get(c);
    if (v === undefined) return undefined;
    n = n * 58n + v;
  }
  let hex = n === 0n ? '' : n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  let zeros = 0;
  while (zeros < input.length && input[zeros] === '1') zeros++;
  const bytes = Buffer.concat([Buffer.alloc(zeros), Buffer.from(hex, 'hex')]);
  if (bytes.length < 5) return undefined;
  const payload = bytes.subarray(0, bytes.length - 4);
  const checksum = bytes.subarray(bytes.length - 4);
  if (!sha256d(payload).subarray(0, 4).equals(checksum)) return undefined;
  return payload;
}

/** Encodes bytes as base58check. */
export function base58checkEncode(payload: Uint8Array): string {
  const bytes = Buffer.concat([payload, sha256d(payload).subarray(0, 4)]);
  let n = BigInt(`0x${bytes.toString('hex') || '0'}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

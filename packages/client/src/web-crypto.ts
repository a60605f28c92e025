/**
 * HMAC-SHA256 through Web Crypto, so the client runs wherever `fetch` does (Node 18+, Deno, Bun,
 * browsers and workers). Node 18 has Web Crypto only as `node:crypto`'s `webcrypto`.
 */

const encoder = new TextEncoder();
type Subtle = typeof globalThis.crypto.subtle;
let subtlePromise: Promise<Subtle> | undefined;

function subtle(): Promise<Subtle> {
  subtlePromise ??= globalThis.crypto?.subtle
    ? Promise.resolve(globalThis.crypto.subtle)
    : import('node:crypto' as string).then((module: { webcrypto: { subtle: Subtle } }) => module.webcrypto.subtle);
  return subtlePromise;
}

/** HMAC-SHA256 of `message` (a string as UTF-8, or bytes) under `secret` (UTF-8). */
export async function hmacSha256(secret: string, message: string | Uint8Array): Promise<Uint8Array> {
  const crypto = await subtle();
  const key = await crypto.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const data = typeof message === 'string' ? encoder.encode(message) : message;
  return new Uint8Array(await crypto.sign('HMAC', key, data as Uint8Array<ArrayBuffer>));
}

/** Lowercase hex HMAC-SHA256 of `message` (a string as UTF-8, or bytes) under `secret` (UTF-8). */
export async function hmacSha256Hex(secret: string, message: string | Uint8Array): Promise<string> {
  const mac = await hmacSha256(secret, message);
  let hex = '';
  for (const byte of mac) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/** Concatenates byte arrays. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export { encoder as utf8Encoder };

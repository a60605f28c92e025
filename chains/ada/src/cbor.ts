/**
 * Minimal CBOR (RFC 8949) for COSE messages: unsigned/negative integers, byte and text strings,
 * arrays, maps, tags, false/true/null. Definite lengths only; no floats. Decoding keeps the raw
 * bytes of every byte string so COSE protected headers can be verified byte for byte.
 */

export type CborValue =
  | number
  | bigint
  | Uint8Array
  | string
  | boolean
  | null
  | CborValue[]
  | Map<CborValue, CborValue>
  | { readonly tag: number; readonly value: CborValue };

export class CborError extends Error {}

export function decodeCbor(bytes: Uint8Array): CborValue {
  const [value, end] = decodeAt(bytes, 0, 0);
  if (end !== bytes.length) throw new CborError('trailing bytes after CBOR item');
  return value;
}

function readLength(bytes: Uint8Array, info: number, pos: number): [number, number] {
  if (info < 24) return [info, pos];
  const size = info === 24 ? 1 : info === 25 ? 2 : info === 26 ? 4 : info === 27 ? 8 : 0;
  if (size === 0) throw new CborError('indefinite or reserved length');
  if (pos + size > bytes.length) throw new CborError('truncated CBOR');
  let n = 0n;
  for (let i = 0; i < size; i++) n = (n << 8n) | BigInt(bytes[pos + i]!);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new CborError('CBOR length too large');
  return [Number(n), pos + size];
}

function decodeAt(bytes: Uint8Array, pos: number, depth: number): [CborValue, number] {
  if (depth > 32) throw new CborError('CBOR nesting too deep');
  if (pos >= bytes.length) throw new CborError('truncated CBOR');
  const initial = bytes[pos]!;
  const major = initial >> 5;
  const info = initial & 0x1f;
  pos += 1;
  switch (major) {
    case 0:
    case 1: {
      const [n, next] = readLength(bytes, info, pos);
      return [major === 0 ? n : -1 - n, next];
    }
    case 2:
    case 3: {
      const [len, start] = readLength(bytes, info, pos);
      if (start + len > bytes.length) throw new CborError('truncated CBOR string');
      const slice = bytes.slice(start, start + len);
      return [major === 2 ? slice : new TextDecoder('utf-8', { fatal: true }).decode(slice), start + len];
    }
    case 4: {
      const [len, start] = readLength(bytes, info, pos);
      const items: CborValue[] = [];
      let p = start;
      for (let i = 0; i < len; i++) {
        const [item, next] = decodeAt(bytes, p, depth + 1);
        items.push(item);
        p = next;
      }
      return [items, p];
    }
    case 5: {
      const [len, start] = readLength(bytes, info, pos);
      const map = new Map<CborValue, CborValue>();
      let p = start;
      for (let i = 0; i < len; i++) {
        const [k, afterKey] = decodeAt(bytes, p, depth + 1);
        const [v, afterValue] = decodeAt(bytes, afterKey, depth + 1);
        map.set(k, v);
        p = afterValue;
      }
      return [map, p];
    }
    case 6: {
      const [tag, start] = readLength(bytes, info, pos);
      const [value, next] = decodeAt(bytes, start, depth + 1);
      return [{ tag, value }, next];
    }
    default: {
      if (info === 20) return [false, pos];
      if (info === 21) return [true, pos];
      if (info === 22) return [null, pos];
      throw new CborError('unsupported CBOR simple value');
    }
  }
}

function head(major: number, n: number): Uint8Array {
  if (n < 24) return Uint8Array.of((major << 5) | n);
  if (n < 0x100) return Uint8Array.of((major << 5) | 24, n);
  if (n < 0x10000) return Uint8Array.of((major << 5) | 25, n >> 8, n & 0xff);
  if (n < 0x100000000) return Uint8Array.of((major << 5) | 26, n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  throw new CborError('length too large');
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** Encodes integers, byte/text strings, booleans, null, arrays and maps (insertion order). */
export function encodeCbor(value: CborValue): Uint8Array {
  if (value === null) return Uint8Array.of(0xf6);
  if (value === true) return Uint8Array.of(0xf5);
  if (value === false) return Uint8Array.of(0xf4);
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new CborError('only integers are supported');
    return value >= 0 ? head(0, value) : head(1, -1 - value);
  }
  if (typeof value === 'bigint') throw new CborError('bigint encoding unsupported');
  if (typeof value === 'string') {
    const b = new TextEncoder().encode(value);
    return concat([head(3, b.length), b]);
  }
  if (value instanceof Uint8Array) return concat([head(2, value.length), value]);
  if (Array.isArray(value)) return concat([head(4, value.length), ...value.map(encodeCbor)]);
  if (value instanceof Map) {
    const parts: Uint8Array[] = [head(5, value.size)];
    for (const [k, v] of value) parts.push(encodeCbor(k), encodeCbor(v));
    return concat(parts);
  }
  return concat([head(6, value.tag), encodeCbor(value.value)]);
}

import { createHash, randomFillSync } from 'node:crypto';

// Randomness comes from a pooled buffer refilled from the OS CSPRNG: ids are made on every
// request, and one crypto call per id (or per character) costs more than the rest of the id.
const pool = Buffer.allocUnsafe(4096);
let offset = pool.length;
/**
 * `bytes` random bytes from the OS CSPRNG as lowercase hex, drawn from the same pooled buffer as
 * ids (one `randomBytes` call per token costs a CSPRNG call of its own): payment tokens.
 */
export function randomHex(bytes: number): string {
  if (offset + bytes > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

/**
 * A new ULID (26 characters, Crockford base32): time-ordered, strictly increasing within this
 * process, 80 random bits from the OS CSPRNG. Every id of the gateway comes from here.
 * Within one millisecond (or while the clock stands behind the last id's time) the previous id's
 * random part is incremented, as the ulid package's monotonic factory does; the digits are kept
 * as numbers and the time part is encoded once per millisecond (a block makes thousands of ids).
 */
export function newId(): string {
  const now = Date.now();
  if (now > lastTime) {
    lastTime = now;
    lastTimePart = encodeTime(now);
    if (offset + RANDOM_DIGITS > pool.length) {
      randomFillSync(pool);
      offset = 0;
    }
    // 256 byte values map evenly onto 32 digits.
    for (let i = 0; i < RANDOM_DIGITS; i++) lastRandom[i] = pool[offset++]! >> 3;
  } else {
    let i = RANDOM_DIGITS - 1;
    while (i >= 0 && lastRandom[i] === 31) lastRandom[i--] = 0;
    if (i < 0) throw new Error('newId: the random part overflowed within one millisecond');
    lastRandom[i]!++;
  }
  let id = lastTimePart;
  for (let i = 0; i < RANDOM_DIGITS; i++) id += CROCKFORD[lastRandom[i]!];
  return id;
}

const RANDOM_DIGITS = 16;
let lastTime = 0;
let lastTimePart = '';
const lastRandom = new Uint8Array(RANDOM_DIGITS);

/** A ULID's time part: milliseconds since the epoch as 10 Crockford characters (48 bits; plain numbers hold them exactly). */
function encodeTime(ms: number): string {
  let time = '';
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[ms % 32] + time;
    ms = Math.floor(ms / 32);
  }
  return time;
}

/** The smallest ULID of millisecond `ms`: ids are time-ordered, so `id >= ulidFloor(t)` is "made at or after t". */
export function ulidFloor(ms: number): string {
  return `${encodeTime(Math.max(0, Math.floor(ms)))}${'0'.repeat(RANDOM_DIGITS)}`;
}

/** A ULID as the API writes it: 26 characters of Crockford base32, upper case. */
export const ULID_PATTERN = '^[0-9A-HJKMNP-TV-Z]{26}$';
const ULID = new RegExp(ULID_PATTERN);

/** Whether `value` is a ULID as the API writes it. */
export function isUlid(value: string): boolean {
  return ULID.test(value);
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID that is a pure function of its inputs: the time part of `anchor` (a ULID, e.g. the
 * invoice an event is about) and 80 bits of SHA-256 over `anchor` and `parts`. The same inputs
 * always give the same id, so an operation keyed on them is idempotent.
 */
export function derivedId(anchor: string, ...parts: string[]): string {
  if (!isUlid(anchor)) throw new Error(`derivedId: anchor must be a ULID, got ${anchor}`);
  return anchor.slice(0, 10) + derivedRandom(anchor, parts);
}

/**
 * A ULID whose time part is `time` and whose 80 random bits are SHA-256 over `parts`: derived from
 * what it names (an invoice's n-th `invoice.paid`), yet ordered by when it was made, so lists keyed
 * by id stay in time order (the delivery log's cursor pagination).
 */
export function derivedIdAt(time: Date, ...parts: string[]): string {
  return encodeTime(Math.max(0, Math.floor(time.getTime()))) + derivedRandom('', parts);
}

/** 80 bits of SHA-256 over `anchor` and `parts` (the digest's first 10 bytes) as 16 Crockford characters, most significant first. */
function derivedRandom(anchor: string, parts: readonly string[]): string {
  const digest = createHash('sha256')
    .update([anchor, ...parts].join('\u0000'))
    .digest();
  let random = '';
  let pending = 0;
  let bits = 0;
  for (let i = 0; i < 10; i++) {
    pending = (pending << 8) | digest[i]!;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      random += CROCKFORD[(pending >> bits) & 31];
    }
    pending &= (1 << bits) - 1;
  }
  return random;
}

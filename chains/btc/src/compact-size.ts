/**
 * Bitcoin's CompactSize ("varint") of a count or a length up to 2^32 - 1, as transactions, PSBTs and
 * signed messages serialise it: one byte below 0xfd, else a marker byte and 2 or 4 bytes little-endian.
 */
export function compactSize(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  const wide = n > 0xffff;
  const bytes = Buffer.alloc(wide ? 5 : 3);
  bytes[0] = wide ? 0xfe : 0xfd;
  if (wide) bytes.writeUInt32LE(n, 1);
  else bytes.writeUInt16LE(n, 1);
  return bytes;
}

/** How many bytes {@link compactSize} (or its 9-byte form above 2^32 - 1) takes for `n`. */
export function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** The witness version of a segwit output script of a version 2 to 16 (OP_2 … OP_16, then one push of 2 to 40 bytes); null otherwise. */
export function futureWitnessVersion(s: Uint8Array): number | null {
  const op = s[0]!;
  if (s.length < 4 || s.length > 42 || op < 0x52 || op > 0x60 || s[1] !== s.length - 2) return null;
  return op - 0x50;
}

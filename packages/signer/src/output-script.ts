/** Script types the signer pays to, by output script: the standard ones a gateway plan can name. */
export type OutputScriptType = 'P2WPKH' | 'P2WSH' | 'P2TR' | 'P2SH' | 'P2PKH';

export function outputScriptType(s: Uint8Array): OutputScriptType | null {
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return 'P2WPKH';
  if (s.length === 34 && s[0] === 0x00 && s[1] === 0x20) return 'P2WSH';
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return 'P2TR';
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'P2SH';
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'P2PKH';
  return null;
}

/** The witness version of a segwit output script of a version 2 to 16 (OP_2 … OP_16, then one push of 2 to 40 bytes); null otherwise. */
export function futureWitnessVersion(s: Uint8Array): number | null {
  const op = s[0]!;
  if (s.length < 4 || s.length > 42 || op < 0x52 || op > 0x60 || s[1] !== s.length - 2) return null;
  return op - 0x50;
}

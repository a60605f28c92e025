/**
 * The virtual size of a signed P2WPKH-only transaction, computed the way the gateway's builder
 * estimates it (chains/btc `estimateVsize`): each input's witness counted with a 72-byte signature,
 * the largest a low-S DER signature with its sighash byte takes. The signer computes the fee rate
 * it shows from this, never from the plan's claim.
 */
const P2WPKH_INPUT_WEIGHT = 41 * 4 + (1 + 1 + 72 + 1 + 33);

function varIntLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** Virtual bytes of the transaction once its `inputCount` P2WPKH inputs are signed. */
export function p2wpkhVsize(inputCount: number, outputScripts: readonly Uint8Array[]): number {
  const outputs = outputScripts.reduce((sum, s) => sum + 8 + varIntLength(s.length) + s.length, 0);
  const base = 4 + varIntLength(inputCount) + inputCount * 41 + varIntLength(outputScripts.length) + outputs + 4;
  // 41 bytes of each input are already in `base`; the weight adds their witness.
  const weight = base * 4 + 2 + inputCount * (P2WPKH_INPUT_WEIGHT - 41 * 4);
  return Math.ceil(weight / 4);
}

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

/**
 * The Bitcoin-family transactions of the gateway's plans: what output scripts they may pay, and
 * their virtual size. They spend P2WPKH inputs only (the only kind the gateway's BIP84 addresses
 * hold). The UTXO treasury builds and sizes its plans with these, and the offline signer reads them
 * with the same: the fee rate it shows is computed here, never taken from the plan's claim.
 */

/** The standard output script types a plan may pay. */
export type OutputScriptType = 'p2wpkh' | 'p2wsh' | 'p2tr' | 'p2sh' | 'p2pkh';

/** The type of a standard output script, or null for anything else (future witness versions, bare multisig, OP_RETURN). */
export function outputScriptType(s: Uint8Array): OutputScriptType | null {
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return 'p2wpkh';
  if (s.length === 34 && s[0] === 0x00 && s[1] === 0x20) return 'p2wsh';
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return 'p2tr';
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'p2sh';
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'p2pkh';
  return null;
}

/**
 * Weight of one signed P2WPKH input: 41 bytes outside the witness (outpoint 36, empty script
 * length 1, sequence 4) × 4, plus the witness (item count 1, a DER signature with its sighash byte
 * of at most 72 bytes and its length 1, a compressed public key 33 and its length 1). The 72-byte
 * upper bound makes the estimate never short: the fee rate paid is at least the one asked.
 */
export const P2WPKH_INPUT_WEIGHT = 41 * 4 + (1 + 1 + 72 + 1 + 33);

/** Bytes of Bitcoin's CompactSize encoding of `n`. */
function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}

/** Serialized size of an output paying `script`: value 8, script length, script. */
export function outputBytes(script: Uint8Array): number {
  return 8 + compactSizeLength(script.length) + script.length;
}

/**
 * Virtual size of the signed transaction: `inputCount` P2WPKH inputs (signatures at their largest)
 * and outputs paying `outputScripts`, version 4 and lock time 4 bytes, the segwit marker and flag
 * counted at witness weight. Never below the real size once signed.
 */
export function p2wpkhVsize(inputCount: number, outputScripts: readonly Uint8Array[]): number {
  const base = 4 + compactSizeLength(inputCount) + compactSizeLength(outputScripts.length) + outputScripts.reduce((sum, s) => sum + outputBytes(s), 0) + 4;
  const weight = base * 4 + 2 + inputCount * P2WPKH_INPUT_WEIGHT;
  return Math.ceil(weight / 4);
}

/**
 * The virtual size of a signed transaction that spends P2WPKH inputs only (the only kind the
 * gateway's BIP84 addresses hold), by BIP 141 weight. The UTXO treasury sizes its plans with it and
 * the offline signer computes the fee rate it shows with it, never from the plan's claim: one
 * formula, so the two always agree.
 */

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

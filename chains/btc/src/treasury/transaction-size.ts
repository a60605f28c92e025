/**
 * Sizes and dust limits of the transactions the treasury builds: P2WPKH inputs (the only kind the
 * gateway's BIP84 addresses hold) and outputs of any standard script type, by Bitcoin Core's
 * rules (BIP 141 weight; `GetDustThreshold` in policy.cpp).
 */
import { outputBytes, outputScriptType, P2WPKH_INPUT_WEIGHT, p2wpkhVsize } from '@gw/chain-api';

/** {@link P2WPKH_INPUT_WEIGHT} in virtual bytes: what spending one of the gateway's outputs costs per unit of fee rate. */
export const P2WPKH_INPUT_VBYTES = P2WPKH_INPUT_WEIGHT / 4;

/** The size the treasury's plans are built for: chain-api's, the formula the offline signer checks the fee rate with. */
export const estimateVsize = p2wpkhVsize;

/**
 * Bitcoin Core's dust threshold of an output (`GetDustThreshold`): the fee at the dust relay fee
 * rate (base units per 1,000 vbytes, Core's default 3,000) of the output plus the input that would
 * spend it, 67 vbytes for a witness program and 148 bytes otherwise. At 3 sat/vB: P2PKH 546,
 * P2SH 540, P2WPKH 294, P2WSH and P2TR 330. An output below it is not relayed.
 */
export function dustThreshold(script: Uint8Array, dustRelayFeePerKvb: bigint): bigint {
  const type = outputScriptType(script);
  const witnessProgram = type === 'p2wpkh' || type === 'p2wsh' || type === 'p2tr';
  const spendingInput = witnessProgram ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  // Rounded up as recent Core's CFeeRate::GetFee does (EvaluateFeeUp): a rate that does not divide evenly never lowers the threshold.
  return (dustRelayFeePerKvb * BigInt(outputBytes(script) + spendingInput) + 999n) / 1000n;
}

import { chainErrors } from '@gw/chain-api';
import { isHexString, Signature } from 'ethers';

/**
 * Parses a 65-byte recoverable secp256k1 signature (hex, `0x` optional) and runs `recover` on it.
 * A malformed signature, or one no key can be recovered from, is 400 `validation_error` naming
 * the signing `standard` (e.g. "EIP-191 personal_sign"): a bad proof is bad input, never a 500.
 * Shared by the EVM chains and TRON, whose wallets sign the same way with different prefixes.
 */
export function recoverSigner<T>(signature: string, standard: string, recover: (parsed: Signature) => T): T {
  let hex = signature.trim();
  if (!hex.startsWith('0x')) hex = `0x${hex}`;
  if (!isHexString(hex, 65)) throw chainErrors.validation_error({ message: `The signature must be 65 bytes of hex (${standard}).` });
  try {
    return recover(Signature.from(hex));
  } catch (cause) {
    throw chainErrors.validation_error({ message: 'The signature could not be parsed.', cause });
  }
}

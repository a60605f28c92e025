import type CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { chainErrors, type NetworkKind, type SpendInput } from '@gw/chain-api';
import { deriveAdaAddress, paymentPublicKey } from '../derive.js';

/**
 * The payment key an input is signed with, derived by the gateway from the account public key at
 * the input's path (`m/1852'/1815'/0'/<branch>/<index>`): never taken from the signed file.
 */
export function inputPaymentKey(input: SpendInput): CSL.PublicKey {
  return paymentPublicKey(input.key.canonical, input.index, input.branch);
}

/** Hex of the blake2b-224 payment key hash a witness for `input` must carry. */
export function inputKeyHash(input: SpendInput): string {
  return inputPaymentKey(input).hash().to_hex();
}

/**
 * Throws `validation_error` unless `input.address` is the base address its key and path derive:
 * a plan whose inputs name the wrong path could never be signed completely.
 */
export function assertInputDerives(input: SpendInput, network: NetworkKind): void {
  if (input.key.chain !== 'ada') {
    throw chainErrors.validation_error({ message: `Input ${input.txHash}#${input.outputIndex}: its key belongs to chain ${input.key.chain}, not ada.` });
  }
  const derived = deriveAdaAddress(input.key.canonical, network, input.index, input.branch);
  if (derived.address !== input.address) {
    throw chainErrors.validation_error({
      message: `Input ${input.txHash}#${input.outputIndex}: ${input.address} is not the address of ${derived.path} of its account key.`,
    });
  }
}

/** Inputs grouped by distinct payment key (one vkey witness each), in first-seen order. */
export function distinctSigningKeys(inputs: readonly SpendInput[]): SpendInput[] {
  const seen = new Map<string, SpendInput>();
  for (const input of inputs) {
    const hash = inputKeyHash(input);
    if (!seen.has(hash)) seen.set(hash, input);
  }
  return [...seen.values()];
}

import type CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { chainErrors, type NetworkKind, type PlanOutput, type SpendInput } from '@gw/chain-api';
import { deriveAdaAddress, paymentKeyPath, paymentPublicKey } from '../derive.js';

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

/** The base address at `branch`/`index` of an account key; `validation_error` when the key does not parse. */
function addressAt(canonical: string, network: NetworkKind, index: number, branch: 0 | 1, what: string): { address: string; path: string } {
  try {
    return deriveAdaAddress(canonical, network, index, branch);
  } catch (cause) {
    throw chainErrors.validation_error({ message: `${what}: its account key is not a Cardano account public key.`, cause });
  }
}

/**
 * Throws `validation_error` unless `input.address` is the base address its key and path derive:
 * a plan whose inputs name the wrong path could never be signed completely.
 */
export function assertInputDerives(input: SpendInput, network: NetworkKind): void {
  const what = `Input ${input.txHash}#${input.outputIndex}`;
  if (input.key.chain !== 'ada') throw chainErrors.validation_error({ message: `${what}: its key belongs to chain ${input.key.chain}, not ada.` });
  const derived = addressAt(input.key.canonical, network, input.index, input.branch, what);
  if (derived.address !== input.address) {
    throw chainErrors.validation_error({ message: `${what}: ${input.address} is not the address of ${derived.path} of its account key.` });
  }
}

/**
 * Throws `validation_error` unless an `own` output's address is the base address at its
 * branch/index of one of the inputs' account keys: the signer checks "own" against its seed, and
 * the gateway must not label an external address as the account's own.
 */
export function assertOwnOutput(output: PlanOutput, inputs: readonly SpendInput[], network: NetworkKind, position: number): void {
  const own = output.own;
  if (own === undefined) return;
  const keys = [...new Set(inputs.map((input) => input.key.canonical))];
  const what = `Output ${position}`;
  if (keys.some((key) => addressAt(key, network, own.index, own.branch, what).address === output.address)) return;
  throw chainErrors.validation_error({
    message: `${what} is marked own at ${paymentKeyPath(own.branch, own.index)}, but ${output.address.slice(0, 120)} is not that address of any input's account key.`,
  });
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

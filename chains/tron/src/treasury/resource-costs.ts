import type { ChainPrices } from './node-answers.js';

/**
 * What TRON resources cost in sun, from the chain parameters. Pure.
 *
 * - Bandwidth: a transaction uses the account's staked, then free (600 bytes a day for an existing
 *   account) bandwidth when it covers the whole transaction; otherwise every byte is burned at
 *   `getTransactionFee`.
 * - Energy: `energy_used` of a `triggerconstantcontract` run (dynamic-energy penalty included) at
 *   `getEnergyFee` each, unless staked or delegated energy pays it.
 * - Creating an account (the first TRX sent to an address): `getCreateNewAccountFeeInSystemContract`
 *   plus `getCreateAccountFee` burned for its bandwidth.
 */

/** Margin over the simulated energy, in percent: the fee limit and the delegated stake leave room for a contract state that moved between simulation and inclusion. */
export const ENERGY_MARGIN_PERCENT = 20n;
const SUN_PER_TRX = 1_000_000n;
/** Stake 2.0 delegates no less than 1 TRX. */
export const MIN_DELEGATION_SUN = SUN_PER_TRX;

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** Sun burned for `bytes` of bandwidth by an account with `bandwidthLeft` bytes (undefined: the account does not exist yet). */
export function bandwidthCost(bytes: bigint, bandwidthLeft: bigint | undefined, prices: ChainPrices): bigint {
  return bandwidthLeft !== undefined && bandwidthLeft >= bytes ? 0n : bytes * prices.bandwidthFee;
}

/** Sun burned for `energy` units. */
export function energyCost(energy: bigint, prices: ChainPrices): bigint {
  return energy * prices.energyFee;
}

/** The `fee_limit` of a contract call using `energy`: its burn cost plus the margin, no more than the chain allows. */
export function feeLimitFor(energy: bigint, prices: ChainPrices): bigint {
  const limit = ceilDiv(energyCost(energy, prices) * (100n + ENERGY_MARGIN_PERCENT), 100n);
  return prices.maxFeeLimit !== undefined && limit > prices.maxFeeLimit ? prices.maxFeeLimit : limit;
}

/** Sun the first TRX sent to a new address costs its sender on top of the amount. */
export function accountCreationCost(prices: ChainPrices): bigint {
  return prices.createAccountSystemFee + prices.createAccountFee;
}

/**
 * Sun of energy stake to delegate so the receiver gets `energy` units (plus the margin): the network
 * gives `TotalEnergyLimit / TotalEnergyWeight` energy a day per whole staked TRX. Rounded up to whole
 * TRX, and at least the 1 TRX Stake 2.0 delegates.
 */
export function delegationFor(energy: bigint, totalEnergyLimit: bigint, totalEnergyWeight: bigint): bigint {
  if (totalEnergyLimit <= 0n) throw new RangeError('the network reports no energy limit');
  const withMargin = ceilDiv(energy * (100n + ENERGY_MARGIN_PERCENT), 100n);
  const trx = ceilDiv(withMargin * totalEnergyWeight, totalEnergyLimit);
  const sun = trx * SUN_PER_TRX;
  return sun < MIN_DELEGATION_SUN ? MIN_DELEGATION_SUN : sun;
}

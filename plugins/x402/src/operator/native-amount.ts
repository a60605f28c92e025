import { fromBaseUnits, type ChainRegistry } from '@gw/kernel';

/** An amount of a chain's native coin (gas money), as the operator reads it: decimal and unit, with the base units beside. */
export interface NativeAmount {
  /** Decimal string in the native coin (`0.0042`). */
  readonly amount: string;
  /** The native coin's ticker (`ETH`, `POL`); `wei` when the chain is not enabled in this build. */
  readonly unit: string;
  /** Base units (wei), decimal string. */
  readonly units: string;
}

/**
 * `units` of `chain`'s native coin (the coin without a contract) as a decimal amount with its
 * ticker. A chain this deployment does not run keeps the base units, named `wei`.
 */
export function nativeAmount(chains: ChainRegistry, chain: string, units: bigint | string): NativeAmount {
  const value = typeof units === 'bigint' ? units : BigInt(units);
  const native = chains.has(chain) ? chains.get(chain).definition.coins.find((c) => c.contracts === undefined) : undefined;
  if (!native) return { amount: value.toString(), unit: 'wei', units: value.toString() };
  return { amount: fromBaseUnits(value, native.decimals), unit: native.symbol, units: value.toString() };
}

/** `0.0042 ETH`. */
export function nativeText(amount: NativeAmount): string {
  return `${amount.amount} ${amount.unit}`;
}

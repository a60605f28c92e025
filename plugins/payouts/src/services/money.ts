import { fixedFromBaseUnits, scaledDecimal, unitsTimesRate } from '@gw/kernel';

/** USD value (2 places, half-up) of `units` at `rate` USD per whole coin. */
export function usdOf(units: bigint, decimals: number, rate: string): string {
  return fixedFromBaseUnits(unitsTimesRate(units, decimals, rate, 2), 2);
}

/** USD value (2 places) of `units` at `rate` USD per whole coin, rounded down: what a refund pays back is never worth more than what came. */
export function usdDownOf(units: bigint, decimals: number, rate: string): string {
  const price = scaledDecimal(rate);
  const scale = decimals + price.scale;
  const product = units * price.digits;
  return fixedFromBaseUnits(scale <= 2 ? product * 10n ** BigInt(2 - scale) : product / 10n ** BigInt(scale - 2), 2);
}

/** Base units worth `usd` at `rate` USD per whole coin, rounded down: a refund never pays more than asked. */
export function unitsOfUsd(usd: string, rate: string, decimals: number): bigint {
  const amount = scaledDecimal(usd);
  const price = scaledDecimal(rate);
  if (price.digits <= 0n) throw new Error(`non-positive rate ${rate}`);
  return (amount.digits * 10n ** BigInt(decimals + price.scale)) / (price.digits * 10n ** BigInt(amount.scale));
}

/** `a > b` for two plain decimals. */
export function decimalAbove(a: string, b: string): boolean {
  const x = scaledDecimal(a);
  const y = scaledDecimal(b);
  const scale = Math.max(x.scale, y.scale);
  return x.digits * 10n ** BigInt(scale - x.scale) > y.digits * 10n ** BigInt(scale - y.scale);
}

/** `units` less `percent` percent (a plain decimal below 100), rounded down. */
export function lessSpread(units: bigint, percent: string): bigint {
  const p = scaledDecimal(percent);
  const whole = 100n * 10n ** BigInt(p.scale);
  return (units * (whole - p.digits)) / whole;
}

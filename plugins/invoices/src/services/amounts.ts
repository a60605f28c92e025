import { coreErrors, decimalOfNumber, fromBaseUnits, scaledDecimal, toBaseUnits, UnitsError, unitsTimesRate } from '@gw/kernel';

/** Most fractional digits accepted in `amount_usd`. */
export const USD_MAX_DECIMALS = 8;

/** The spec's bounds of `amount_usd`, both inclusive (spec 4.2). */
export const AMOUNT_USD_BOUNDS = { min: '0.01', max: '1000000000' } as const;

/** Whether a USD decimal lies within {@link AMOUNT_USD_BOUNDS}. */
export function usdWithinBounds(usd: string): boolean {
  const cents = (value: string) => toBaseUnits(value, USD_MAX_DECIMALS);
  const amount = cents(usd);
  return amount >= cents(AMOUNT_USD_BOUNDS.min) && amount <= cents(AMOUNT_USD_BOUNDS.max);
}

/**
 * The decimal a JSON number was written as (kernel `decimalOfNumber`: JSON.parse keeps the shortest
 * representation that round-trips, exponent forms are expanded in the digits). Throws
 * `validation_error` for a negative or non-finite value and beyond 8 fractional digits.
 */
export function usdDecimal(value: number): string {
  let text: string;
  try {
    text = decimalOfNumber(value);
  } catch (cause) {
    if (!(cause instanceof UnitsError)) throw cause;
    throw coreErrors.validation_error({ message: 'amount_usd must be a positive decimal number', details: { field: 'amount_usd' } });
  }
  if (scaledDecimal(text).scale > USD_MAX_DECIMALS) {
    throw coreErrors.validation_error({ message: `amount_usd has more than ${USD_MAX_DECIMALS} fractional digits`, details: { field: 'amount_usd' } });
  }
  return text;
}

/**
 * Base units of a coin worth `usd` at `rate` (USD per whole coin), rounded up to the coin's payment
 * precision (`paymentDecimals` fractional digits, at most `decimals`) so the payer never pays less
 * than the USD amount and is never asked for 18 decimals. Exact: both decimals become integers over
 * powers of ten.
 */
export function usdToUnits(usd: string, rate: string, decimals: number, paymentDecimals: number): bigint {
  const amount = scaledDecimal(usd);
  const price = scaledDecimal(rate);
  if (price.digits <= 0n) throw new Error(`non-positive rate ${rate}`);
  if (!Number.isInteger(paymentDecimals) || paymentDecimals < 0 || paymentDecimals > decimals)
    throw new Error(`paymentDecimals ${paymentDecimals} outside 0..${decimals}`);
  // units = usd / rate * 10^decimals = usdDigits * 10^(decimals + rateScale) / (rateDigits * 10^usdScale),
  // counted in steps of 10^(decimals - paymentDecimals) units and rounded up to a whole step.
  const step = 10n ** BigInt(decimals - paymentDecimals);
  const numerator = amount.digits * 10n ** BigInt(decimals + price.scale);
  const denominator = price.digits * 10n ** BigInt(amount.scale) * step;
  return ((numerator + denominator - 1n) / denominator) * step;
}

/** USD worth of `units` base units at `rate` (USD per whole coin), rounded to 8 decimals (numeric(20,8)). */
export function unitsToUsd(units: bigint, rate: string, decimals: number): string {
  return fromBaseUnits(unitsTimesRate(units, decimals, rate, USD_MAX_DECIMALS), USD_MAX_DECIMALS);
}

/** The largest token amount any supported chain can carry (uint256); also within numeric(78,0). */
export const MAX_AMOUNT_UNITS = 2n ** 256n - 1n;

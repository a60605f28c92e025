import { coreErrors, trimTrailing } from '@gw/kernel';

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** Most fractional digits accepted in `amount_usd`. */
export const USD_MAX_DECIMALS = 8;

/**
 * The decimal string a JSON number was written as. JSON.parse keeps the shortest representation
 * that round-trips, so for the accepted range (0.01 to 1e9) `String` gives back what the partner
 * sent; exponent forms are expanded. Throws `validation_error` beyond 8 fractional digits.
 */
export function usdDecimal(value: number): string {
  const text = expandExponent(String(value));
  const match = DECIMAL.exec(text);
  if (!match) throw coreErrors.validation_error({ message: 'amount_usd must be a positive decimal number', details: { field: 'amount_usd' } });
  if ((match[2] ?? '').length > USD_MAX_DECIMALS) {
    throw coreErrors.validation_error({ message: `amount_usd has more than ${USD_MAX_DECIMALS} fractional digits`, details: { field: 'amount_usd' } });
  }
  return trimDecimal(text);
}

/**
 * Base units of a coin worth `usd` at `rate` (USD per whole coin), rounded up so the payer never
 * pays less than the USD amount. Exact: both decimals become integers over powers of ten.
 */
export function usdToUnits(usd: string, rate: string, decimals: number): bigint {
  const [usdInt, usdScale] = scaled(usd);
  const [rateInt, rateScale] = scaled(rate);
  if (rateInt <= 0n) throw new Error(`non-positive rate ${rate}`);
  // units = usd / rate * 10^decimals = usdInt * 10^(decimals + rateScale) / (rateInt * 10^usdScale)
  const numerator = usdInt * 10n ** BigInt(decimals + rateScale);
  const denominator = rateInt * 10n ** BigInt(usdScale);
  return (numerator + denominator - 1n) / denominator;
}

/** USD worth of `units` base units at `rate` (USD per whole coin), rounded to 8 decimals (numeric(20,8)). */
export function unitsToUsd(units: bigint, rate: string, decimals: number): string {
  const [rateInt, rateScale] = scaled(rate);
  // usd * 10^8 = units * rateInt * 10^8 / 10^(decimals + rateScale), rounded half up
  const numerator = units * rateInt * 10n ** BigInt(USD_MAX_DECIMALS) * 2n;
  const denominator = 10n ** BigInt(decimals + rateScale);
  const hundredMillionths = (numerator / denominator + 1n) / 2n;
  const text = hundredMillionths.toString().padStart(USD_MAX_DECIMALS + 1, '0');
  return trimDecimal(`${text.slice(0, -USD_MAX_DECIMALS)}.${text.slice(-USD_MAX_DECIMALS)}`);
}

function scaled(decimal: string): [bigint, number] {
  const match = DECIMAL.exec(decimal);
  if (!match) throw new Error(`not a decimal: ${decimal}`);
  const fraction = match[2] ?? '';
  return [BigInt(match[1]! + fraction), fraction.length];
}

function trimDecimal(text: string): string {
  if (!text.includes('.')) return text;
  return trimTrailing(trimTrailing(text, '0'), '.');
}

function expandExponent(text: string): string {
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return text;
  const digits = match[1]! + (match[2] ?? '');
  const point = match[1]!.length + Number(match[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** The largest token amount any supported chain can carry (uint256); also within numeric(78,0). */
export const MAX_AMOUNT_UNITS = 2n ** 256n - 1n;

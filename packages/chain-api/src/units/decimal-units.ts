/**
 * The one decimal module for money: exact conversion between decimal strings (the API edge,
 * provider prices, numeric columns read as text) and bigint base units (everywhere else). No
 * floating point is involved at any step. A "plain decimal" below is `^\d+(\.\d+)?$`: no sign,
 * no exponent.
 */
import { trimTrailing } from '../trim-trailing.js';

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

export class UnitsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnitsError';
  }
}

/**
 * Parses a non-negative decimal string into base units with `decimals` fractional digits.
 * Throws UnitsError when the string is not a plain decimal or has more fractional digits than the
 * coin allows (trailing zeros beyond the precision are accepted: "1.500" with 2 decimals is 150).
 */
export function toBaseUnits(amount: string, decimals: number): bigint {
  assertDecimals(decimals);
  const match = DECIMAL.exec(amount);
  if (!match) throw new UnitsError(`"${amount}" is not a non-negative decimal number`);
  const whole = match[1]!;
  let fraction = match[2] ?? '';
  if (fraction.length > decimals) {
    const extra = fraction.slice(decimals);
    if (/[^0]/.test(extra)) {
      throw new UnitsError(`"${amount}" has more than ${decimals} fractional digits`);
    }
    fraction = fraction.slice(0, decimals);
  }
  return BigInt(whole + fraction.padEnd(decimals, '0'));
}

/** Renders base units as the shortest exact decimal string ("1.5", "0.00000001", "10"). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  assertDecimals(decimals);
  if (units < 0n) throw new UnitsError('negative amounts are not representable');
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = trimTrailing(digits.slice(digits.length - decimals), '0');
  return fraction.length > 0 ? `${whole}.${fraction}` : whole;
}

/** Parses a base-units string (`^\d+$`) into a bigint; throws UnitsError otherwise. */
export function parseUnits(units: string): bigint {
  if (!/^\d+$/.test(units)) throw new UnitsError(`"${units}" is not a non-negative integer`);
  return BigInt(units);
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new UnitsError(`unsupported number of decimals: ${decimals}`);
  }
}

const NUMBER_LITERAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** Exponents beyond this are not amounts, prices or factors; refusing them keeps the expansion bounded. */
const MAX_EXPONENT = 100;
/** Every finite double's shortest text has an exponent within this (5e-324 … 1.7976931348623157e308). */
const MAX_DOUBLE_EXPONENT = 400;

/**
 * Normalises a non-negative decimal or exponent literal (`"97123.4500"`, `"0001.50"`, `".5"`,
 * `"2.5e-7"`, `"1E+3"`, `"+3"`) to the canonical plain decimal: no exponent, no leading zeros, no
 * trailing fractional zeros (`"97123.45"`, `"1.5"`, `"0.5"`, `"0.00000025"`, `"1000"`, `"3"`). The
 * exponent is applied by moving the point in the digit string. Throws UnitsError for anything
 * else, for a negative value (`"-0"` is zero) and for an exponent beyond ±`maxExponent`.
 */
export function toPlainDecimal(text: string, maxExponent = MAX_EXPONENT): string {
  const match = NUMBER_LITERAL.exec(text.trim());
  if (!match) throw new UnitsError(`"${text}" is not a decimal number`);
  const [, sign, whole = '', fraction = '', exponentText] = match;
  if (whole === '' && fraction === '') throw new UnitsError(`"${text}" is not a decimal number`);
  if (sign === '-' && /[1-9]/.test(whole + fraction)) throw new UnitsError(`"${text}" is negative`);
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > maxExponent) throw new UnitsError(`"${text}" has an out-of-range exponent`);
  let digits = whole + fraction;
  let point = whole.length + exponent;
  if (point < 0) {
    digits = '0'.repeat(-point) + digits;
    point = 0;
  }
  if (point > digits.length) digits = digits.padEnd(point, '0');
  const integerPart = digits.slice(0, point).replace(/^0+/, '') || '0';
  const fractionPart = trimTrailing(digits.slice(point), '0');
  return fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
}

/**
 * A finite non-negative JSON number as a canonical plain decimal: its shortest round-trip text,
 * which is the decimal its writer wrote, with an exponent (`1.5e-7`, `2e+21`) applied in the
 * digits, never through floating-point arithmetic (`toFixed` adds binary noise). For amounts and
 * factors that arrive as JSON numbers. Throws UnitsError for a negative or non-finite number.
 */
export function decimalOfNumber(value: number): string {
  if (!Number.isFinite(value)) throw new UnitsError(`${value} is not a finite number`);
  return toPlainDecimal(String(value), MAX_DOUBLE_EXPONENT);
}

/** Whether a plain decimal is greater than zero. */
export function isPositiveDecimal(plain: string): boolean {
  return /[1-9]/.test(plain);
}

/** A positive decimal literal (see toPlainDecimal) as a canonical plain decimal, or undefined when `text` is not one. */
export function parsePositiveDecimal(text: string): string | undefined {
  try {
    const plain = toPlainDecimal(text);
    return isPositiveDecimal(plain) ? plain : undefined;
  } catch {
    return undefined;
  }
}

/** A plain decimal as an integer over a power of ten: `"12.50"` is `{ digits: 1250n, scale: 2 }`. */
export interface ScaledDecimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** Splits a plain decimal into its digits and scale (number of fractional digits); throws UnitsError otherwise. */
export function scaledDecimal(plain: string): ScaledDecimal {
  const match = DECIMAL.exec(plain);
  if (!match) throw new UnitsError(`"${plain}" is not a plain non-negative decimal`);
  const fraction = match[2] ?? '';
  return { digits: BigInt(match[1]! + fraction), scale: fraction.length };
}

/**
 * `units / 10^decimals × rate` (`rate` a plain decimal per whole coin, e.g. a USD price), exactly,
 * rounded half-up to `places` fractional digits. The result counts units of `10^-places`: render it
 * with {@link fromBaseUnits} (shortest) or {@link fixedFromBaseUnits} (exactly `places` digits).
 * The one place where base units meet a rate, so every price shown or stored rounds alike.
 */
export function unitsTimesRate(units: bigint, decimals: number, rate: string, places: number): bigint {
  assertDecimals(decimals);
  assertDecimals(places);
  const price = scaledDecimal(rate);
  const product = units * price.digits;
  const scale = decimals + price.scale;
  if (scale <= places) return product * 10n ** BigInt(places - scale);
  const divisor = 10n ** BigInt(scale - places);
  return (product + divisor / 2n) / divisor;
}

/** Renders base units with exactly `decimals` fractional digits ("39.50000000", "0.00", "7"). */
export function fixedFromBaseUnits(units: bigint, decimals: number): string {
  assertDecimals(decimals);
  if (units < 0n) throw new UnitsError('negative amounts are not representable');
  const digits = units.toString().padStart(decimals + 1, '0');
  return decimals === 0 ? digits : `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`;
}

/**
 * `numerator / denominator` (plain decimals, the denominator positive) rounded half-up to
 * `significantDigits` significant digits, as the shortest plain decimal: `("1", "156", 12)` is
 * `"0.00641025641026"`, `("97123.45", "89802.1", 12)` is `"1.08152760347"`. Exact: both become
 * integers over powers of ten and the quotient is rounded once. For a rate that is the ratio of two
 * others (USD per euro from USD and euros per bitcoin) or the inverse of one (USD per yen from yen
 * per dollar). Throws UnitsError for a zero denominator, for what is not a plain decimal, and when
 * the result would need more than 36 fractional digits. The whole part is never rounded.
 */
export function divideDecimals(numerator: string, denominator: string, significantDigits: number): string {
  if (!Number.isInteger(significantDigits) || significantDigits < 1 || significantDigits > 36) {
    throw new UnitsError(`unsupported number of significant digits: ${significantDigits}`);
  }
  const n = scaledDecimal(numerator);
  const d = scaledDecimal(denominator);
  if (d.digits === 0n) throw new UnitsError('division by zero');
  if (n.digits === 0n) return '0';
  // value = top / bottom, both integers.
  const top = n.digits * 10n ** BigInt(d.scale);
  const bottom = d.digits * 10n ** BigInt(n.scale);
  const atLeastPowerOfTen = (k: number) => (k >= 0 ? top >= bottom * 10n ** BigInt(k) : top * 10n ** BigInt(-k) >= bottom);
  // magnitude: 10^(magnitude - 1) <= value < 10^magnitude (the digit counts give it within one).
  let magnitude = top.toString().length - bottom.toString().length;
  while (atLeastPowerOfTen(magnitude)) magnitude += 1;
  while (!atLeastPowerOfTen(magnitude - 1)) magnitude -= 1;
  const places = Math.max(0, significantDigits - magnitude);
  const scaledTop = top * 10n ** BigInt(places);
  const rounded = (2n * scaledTop + bottom) / (2n * bottom);
  return fromBaseUnits(rounded, places);
}

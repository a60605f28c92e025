/**
 * Exact decimal text handling for rates. Provider prices arrive as JSON number literals (CoinGecko)
 * or strings (Kraken); both are turned into a plain decimal string by moving the decimal point in
 * the digit string, so no floating-point value is ever involved.
 */
import { trimTrailing } from '@gw/kernel';

const NUMBER_LITERAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
/** Exponents beyond this are not prices; refusing them keeps the expansion bounded. */
const MAX_EXPONENT = 100;

/**
 * Normalises a decimal or exponent literal (`"97123.4500"`, `"1.0"`, `"2.5e-7"`, `"1E+3"`) to a plain
 * decimal string without exponent, leading zeros or trailing fractional zeros (`"97123.45"`, `"1"`,
 * `"0.00000025"`, `"1000"`). Throws a RangeError for anything else, including negative values.
 */
export function toPlainDecimal(text: string): string {
  const match = NUMBER_LITERAL.exec(text.trim());
  if (!match) throw new RangeError(`"${text}" is not a decimal number`);
  const [, sign, whole = '', fraction = '', exponentText] = match;
  if (whole === '' && fraction === '') throw new RangeError(`"${text}" is not a decimal number`);
  if (sign === '-' && /[1-9]/.test(whole + fraction)) throw new RangeError(`"${text}" is negative`);
  const exponent = exponentText === undefined ? 0 : Number(exponentText);
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > MAX_EXPONENT) throw new RangeError(`"${text}" has an out-of-range exponent`);
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

/** Whether a plain decimal string is greater than zero. */
export function isPositiveDecimal(plain: string): boolean {
  return /[1-9]/.test(plain);
}

/** A positive rate as a plain decimal string, or undefined when `text` is not one. */
export function parseRate(text: string): string | undefined {
  try {
    const plain = toPlainDecimal(text);
    return isPositiveDecimal(plain) ? plain : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Exact conversion between decimal strings (the API edge) and bigint base units (everywhere else).
 * No floating point is involved at any step.
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

/**
 * A finite non-negative JSON number as a plain decimal string (no exponent): its shortest
 * round-trip text, which is the decimal its writer wrote, with an exponent (`1.5e-7`, `2e+21`)
 * applied by moving the point in the digits, never through floating-point arithmetic (`toFixed`
 * adds binary noise). For amounts and factors that arrive as JSON numbers.
 */
export function decimalOfNumber(value: number): string {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/i.exec(text);
  if (!match) return text;
  const digits = `${match[1]}${match[2] ?? ''}`;
  const point = match[1]!.length + Number(match[3]);
  const plain = point <= 0 ? `0.${'0'.repeat(-point)}${digits}` : point >= digits.length ? `${digits}${'0'.repeat(point - digits.length)}` : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return plain.includes('.') ? trimTrailing(trimTrailing(plain, '0'), '.') : plain;
}

import type { ChainId, InvoiceEventType } from '@gw/kernel';
import { WAITING_STATUSES, type InvoiceStatus } from '@gw/plugin-invoices';
import { createHash } from 'node:crypto';

/** The named simulations of spec 4.5 (path suffix `simulate-<name>`). */
export const SIMULATIONS = ['detect', 'paid', 'overpaid', 'partial', 'expire', 'late-payment', 'reorg', 'reconfirm'] as const;
export type Simulation = (typeof SIMULATIONS)[number];

/** Each simulation's precondition, resulting status and event (spec 3.1's table). */
export const SIMULATION_RULES: Readonly<Record<Simulation, { from: readonly InvoiceStatus[]; to: InvoiceStatus | 'same'; event: InvoiceEventType }>> = {
  detect: { from: ['pending'], to: 'detected', event: 'invoice.detected' },
  paid: { from: ['detected'], to: 'paid', event: 'invoice.paid' },
  overpaid: { from: ['detected'], to: 'overpaid', event: 'invoice.overpaid' },
  // simulate-partial announces a partial payment; the invoice stays detected (spec 3.1).
  partial: { from: ['detected'], to: 'same', event: 'invoice.partial' },
  expire: { from: WAITING_STATUSES, to: 'expired', event: 'invoice.expired' },
  'late-payment': { from: ['expired'], to: 'expired_paid_late', event: 'invoice.expired_paid_late' },
  reorg: { from: ['paid', 'overpaid', 'partial'], to: 'reverted', event: 'invoice.reverted' },
  reconfirm: { from: ['reverted'], to: 'paid', event: 'invoice.paid' },
};

/**
 * simulate-event: the status each event type implies, and the statuses it may be applied from
 * (the same moves as the named simulations; `invoice.partial` moves to `partial`, the only way
 * into that status in the sandbox).
 */
export const EVENT_RULES: Readonly<Record<InvoiceEventType, { to: InvoiceStatus; from: readonly InvoiceStatus[] }>> = {
  'invoice.detected': { to: 'detected', from: ['pending'] },
  'invoice.paid': { to: 'paid', from: ['detected', 'partial', 'reverted'] },
  'invoice.overpaid': { to: 'overpaid', from: ['detected', 'partial'] },
  'invoice.partial': { to: 'partial', from: ['detected'] },
  'invoice.expired': { to: 'expired', from: WAITING_STATUSES },
  'invoice.expired_paid_late': { to: 'expired_paid_late', from: ['expired'] },
  'invoice.reverted': { to: 'reverted', from: ['paid', 'overpaid', 'partial'] },
};

/** Event types whose latest occurrence simulate-duplicate-delivery sends again. */
export const TERMINAL_EVENT_TYPES: readonly InvoiceEventType[] = ['invoice.paid', 'invoice.overpaid', 'invoice.expired', 'invoice.expired_paid_late', 'invoice.reverted'];

const HEX_WITH_0X: ReadonlySet<ChainId> = new Set(['eth', 'polygon', 'bsc']);

/**
 * A synthesized transaction hash in the chain's usual form (0x-prefixed on EVM chains, 64 hex
 * elsewhere): SHA-256 of the chain and the seed, so the same seed always gives the same hash.
 */
export function synthesizedTxHash(chain: ChainId, seed: string): string {
  const hex = createHash('sha256').update(`sandbox:${chain}:${seed}`).digest('hex');
  return HEX_WITH_0X.has(chain) ? `0x${hex}` : hex;
}

/** `units × multiplier`, rounded up to a whole base unit; the multiplier is taken as written in decimal. */
export function multiplyUnits(units: bigint, multiplier: number): bigint {
  const [whole, fraction = ''] = decimalString(multiplier).split('.');
  const scale = 10n ** BigInt(fraction.length);
  const product = units * BigInt(`${whole}${fraction}`);
  return (product + scale - 1n) / scale;
}

/** `units × fraction` (0 < fraction < 1), rounded down, at least 1. */
export function fractionOfUnits(units: bigint, fraction: number): bigint {
  const [, digits = ''] = decimalString(fraction).split('.');
  const part = (units * BigInt(digits || '0')) / 10n ** BigInt(digits.length);
  return part < 1n ? 1n : part;
}

/** A finite positive number as a plain decimal string (no exponent). */
function decimalString(value: number): string {
  const text = String(value);
  if (!/e/i.test(text)) return text;
  return value.toFixed(20).replace(/0+$/, '').replace(/\.$/, '');
}

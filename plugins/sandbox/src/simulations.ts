import { decimalOfNumber } from '@gw/kernel';
import type { ChainDefinition, InvoiceEventType } from '@gw/kernel';
import { isShort, type MatchingMode, statusesReaching, statusesWhere, WAITING_STATUSES, type InvoiceStatus } from '@gw/plugin-invoices/contract';
import { createHash } from 'node:crypto';

/** The named simulations of spec 4.5 (path suffix `simulate-<name>`). */
export const SIMULATIONS = ['detect', 'paid', 'overpaid', 'partial', 'expire', 'late-payment', 'reorg', 'reconfirm'] as const;
export type Simulation = (typeof SIMULATIONS)[number];

/** What a simulation on one invoice answers when it cannot run, on every surface (REST and MCP), beside each surface's own. */
export const SIMULATION_ERRORS = ['sandbox_invoice_not_found', 'sandbox_invoice_transition_invalid', 'sandbox_rate_limit_exceeded'] as const;

/*
 * Where a simulation applies is read off the invoice lifecycle: the statuses from which the fact it
 * ends with moves the invoice where it promises. Spec 3.1 narrows some of these, each by a trait:
 * settling from an open invoice with nothing settled yet (simulate-paid, -overpaid, -partial), again
 * from a closed one (simulate-reconfirm), and reorganising only what was settled in time.
 */
const DETECTABLE = statusesReaching('payment_seen', 'detected');
const settlingFirst = (to: InvoiceStatus) => statusesWhere({ open: true, settled: false }, statusesReaching('payment_confirmed', to));
const SETTLING_AGAIN = statusesWhere({ open: false }, statusesReaching('payment_confirmed', 'paid'));
const SETTLING_LATE = statusesReaching('payment_confirmed', 'expired_paid_late');
const REVERTIBLE = statusesWhere({ pastDeadline: false }, statusesReaching('payment_reverted', 'reverted'));

/**
 * Each named simulation: the statuses spec 3.1 allows it from, the status and event it ends with,
 * and how it is built as facts for the invoice lifecycle (the same table, matcher and commands a
 * chain watcher drives; docs/invoice-lifecycle.md prints these). Sandbox payments carry the
 * invoice's payment token as their memo, so a simulation pays the invoice it names even at a
 * shared address; their confirmations are counted by the sandbox instead of a chain.
 */
export const SIMULATION_RULES: Readonly<
  Record<Simulation, { from: readonly InvoiceStatus[]; to: InvoiceStatus | 'same'; event: InvoiceEventType; facts: string }>
> = {
  detect: {
    from: DETECTABLE,
    to: 'detected',
    event: 'invoice.detected',
    facts: 'payment_seen: a payment of the invoiced amount in the mempool (0 confirmations; tx hash from `seed`).',
  },
  paid: {
    from: settlingFirst('paid'),
    to: 'paid',
    event: 'invoice.paid',
    facts: 'payment_seen of what is still due (when the live total is short), then payment_confirmed: every live transfer at the threshold.',
  },
  overpaid: {
    from: settlingFirst('overpaid'),
    to: 'overpaid',
    event: 'invoice.overpaid',
    facts: 'payment_seen of the extra amount (`multiplier` × amount or amount + `extraUnits` in all), then payment_confirmed at the threshold.',
  },
  // simulate-partial announces a partial payment; the invoice stays detected (spec 3.1).
  partial: {
    from: settlingFirst('partial'),
    to: 'same',
    event: 'invoice.partial',
    facts:
      'payment_seen of the smaller payment replacing the unconfirmed ones (replace-by-fee), then payment_dropped of those: the total falls short. Refused for an `any` invoice, which accepts any amount.',
  },
  expire: {
    from: WAITING_STATUSES,
    to: 'expired',
    event: 'invoice.expired',
    facts: 'payment_dropped of every unconfirmed payment (they never make it into a block), then deadline_passed.',
  },
  'late-payment': {
    from: SETTLING_LATE,
    to: 'expired_paid_late',
    event: 'invoice.expired_paid_late',
    facts: 'payment_seen of the invoiced amount after expiry, then payment_confirmed at the threshold.',
  },
  reorg: { from: REVERTIBLE, to: 'reverted', event: 'invoice.reverted', facts: 'payment_reverted of every counted payment (a reorganisation).' },
  reconfirm: {
    from: SETTLING_AGAIN,
    to: 'paid',
    event: 'invoice.paid',
    facts:
      'payment_seen of exactly the invoiced amount (mined again, as an exact payment), then payment_confirmed at the threshold: paid, with a fresh event id.',
  },
};

/**
 * Whether a named simulation can run on an invoice now: its status is one the simulation starts
 * from, and for `partial` a smaller payment is short in the invoice's matching mode (the lifecycle's
 * `isShort`: not for `any`). The simulator refuses the others; pages disable their buttons.
 */
export function simulationApplies(simulation: Simulation, invoice: { readonly status: InvoiceStatus; readonly matching_mode: MatchingMode }): boolean {
  if (!SIMULATION_RULES[simulation].from.includes(invoice.status)) return false;
  return simulation !== 'partial' || isShort({ liveUnits: 0n, amountUnits: 1n, matchingMode: invoice.matching_mode });
}

/**
 * simulate-event: the statuses each event type may be applied from and the status it implies. The
 * facts are those of the matching named simulation, with the body's amount as the event's payment
 * (`amountUnits` replaces the unconfirmed payments; for `invoice.detected` it is the first one) and
 * its confirmations (at least the threshold for settling events). When the lifecycle's rules give
 * another status than the event implies (say `invoice.paid` with an amount that overpays), the call
 * is refused with 422 `sandbox_invoice_transition_invalid` and nothing changes.
 */
export const EVENT_RULES: Readonly<Record<InvoiceEventType, { to: InvoiceStatus; from: readonly InvoiceStatus[] }>> = {
  'invoice.detected': { to: 'detected', from: DETECTABLE },
  'invoice.paid': { to: 'paid', from: statusesReaching('payment_confirmed', 'paid') },
  'invoice.overpaid': { to: 'overpaid', from: statusesReaching('payment_confirmed', 'overpaid') },
  'invoice.partial': { to: 'partial', from: statusesReaching('payment_confirmed', 'partial') },
  'invoice.expired': { to: 'expired', from: WAITING_STATUSES },
  'invoice.expired_paid_late': { to: 'expired_paid_late', from: SETTLING_LATE },
  'invoice.reverted': { to: 'reverted', from: REVERTIBLE },
};

/** Event types whose latest occurrence simulate-duplicate-delivery sends again. */
export const TERMINAL_EVENT_TYPES: readonly InvoiceEventType[] = [
  'invoice.paid',
  'invoice.overpaid',
  'invoice.expired',
  'invoice.expired_paid_late',
  'invoice.reverted',
];

/**
 * A synthesized transaction hash in the chain's usual form (0x-prefixed on EVM chains, those whose
 * networks have an EIP-155 chain id; 64 hex elsewhere): SHA-256 of the chain id and the seed, so
 * the same seed always gives the same hash.
 */
export function synthesizedTxHash(chain: Pick<ChainDefinition, 'id' | 'networks'>, seed: string): string {
  const hex = createHash('sha256').update(`sandbox:${chain.id}:${seed}`).digest('hex');
  return chain.networks.mainnet.evmChainId !== undefined ? `0x${hex}` : hex;
}

/** `units × multiplier`, rounded up to a whole base unit; the multiplier is taken as written in decimal. */
export function multiplyUnits(units: bigint, multiplier: number): bigint {
  const [whole, fraction = ''] = decimalOfNumber(multiplier).split('.');
  const scale = 10n ** BigInt(fraction.length);
  const product = units * BigInt(`${whole}${fraction}`);
  return (product + scale - 1n) / scale;
}

/** `units × fraction` (0 < fraction < 1), rounded down, at least 1. */
export function fractionOfUnits(units: bigint, fraction: number): bigint {
  const [, digits = ''] = decimalOfNumber(fraction).split('.');
  const part = (units * BigInt(digits || '0')) / 10n ** BigInt(digits.length);
  return part < 1n ? 1n : part;
}

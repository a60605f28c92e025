import test from 'ava';
import { decimalOfNumber } from '@gw/kernel';
import { EVENT_RULES, fractionOfUnits, multiplyUnits, SIMULATION_RULES } from './simulations.js';

test('decimalOfNumber writes a number as the client wrote it, exponents moved in the digits (no float arithmetic)', (t) => {
  t.is(decimalOfNumber(1.5), '1.5');
  t.is(decimalOfNumber(1e-7), '0.0000001');
  t.is(decimalOfNumber(1.2345e-15), '0.0000000000000012345');
  t.is(decimalOfNumber(1.5e22), '15000000000000000000000');
  t.is(decimalOfNumber(2.5e-30), `0.${'0'.repeat(29)}25`);
});

test('fractions and multipliers of base units are exact: rounded down (at least 1) and up', (t) => {
  t.is(fractionOfUnits(10n ** 18n, 1e-7), 10n ** 11n);
  t.is(fractionOfUnits(10n ** 18n, 2.5e-30), 1n);
  t.is(fractionOfUnits(1000n, 0.3333), 333n);
  t.is(multiplyUnits(10n ** 18n, 1.000001), 1_000_001_000_000_000_000n);
  t.is(multiplyUnits(3n, 1.5), 5n);
});

// Where simulations apply is derived from the invoice lifecycle; these are spec 4.5's statuses
// (and the lifecycle's for simulate-event), so a change of the table that moves them shows here.

test('each named simulation applies from the statuses spec 4.5 gives it', (t) => {
  const from = Object.fromEntries(Object.entries(SIMULATION_RULES).map(([name, rule]) => [name, rule.from]));
  t.deepEqual(from, {
    detect: ['pending'],
    paid: ['detected'],
    overpaid: ['detected'],
    partial: ['detected'],
    expire: ['pending', 'detected', 'partial', 'ambiguous'],
    'late-payment': ['expired'],
    reorg: ['paid', 'overpaid', 'partial'],
    reconfirm: ['reverted'],
  });
});

test('simulate-event applies each event type from the statuses the lifecycle reaches it from', (t) => {
  const from = Object.fromEntries(Object.entries(EVENT_RULES).map(([event, rule]) => [event, rule.from]));
  t.deepEqual(from, {
    'invoice.detected': ['pending'],
    'invoice.paid': ['detected', 'partial', 'reverted'],
    'invoice.overpaid': ['detected', 'partial', 'reverted'],
    'invoice.partial': ['detected', 'partial', 'reverted'],
    'invoice.expired': ['pending', 'detected', 'partial', 'ambiguous'],
    'invoice.expired_paid_late': ['expired'],
    'invoice.reverted': ['paid', 'overpaid', 'partial'],
  });
});

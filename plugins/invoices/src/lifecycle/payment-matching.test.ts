import test from 'ava';
import { matchPayment, matchReferencedPayment, type MatchCandidate, type MatchReceipt } from './payment-matching.js';

// Matching on a chain with payment references (issue 43): one recipient address for every invoice,
// the reference tells them apart; without one, only an exact unique amount names a pending invoice.

const created = new Date('2026-01-01T00:00:00Z');
const later = new Date('2026-01-01T00:10:00Z');

function invoice(id: string, extra: Partial<MatchCandidate> = {}): MatchCandidate {
  return {
    id,
    status: 'pending',
    amountUnits: 1_000_000n,
    paymentToken: `${id}0000000`.slice(0, 16),
    createdAt: created,
    paymentReference: `ref-${id}`,
    matchingMode: 'exact',
    ...extra,
  };
}

function receipt(extra: Partial<MatchReceipt> = {}): MatchReceipt {
  return { amountUnits: 1_000_000n, firstSeenAt: later, blockTime: null, blockTimeSkewMs: 120_000, ...extra };
}

test('a reference picks its invoice whatever the amount and however many invoices share the address', (t) => {
  const candidates = [invoice('c'), invoice('b', { matchingMode: 'at_least' }), invoice('a')];
  t.deepEqual(matchReferencedPayment(candidates, receipt({ references: ['ref-b'], amountUnits: 5n })), { kind: 'invoice', invoiceId: 'b' });
  t.deepEqual(matchReferencedPayment(candidates, receipt({ references: ['unknown', 'ref-a'] })), { kind: 'invoice', invoiceId: 'a' });
});

test('a reference of an expired invoice is a late payment; of a cancelled one, an orphan', (t) => {
  t.deepEqual(matchReferencedPayment([invoice('a', { status: 'expired' })], receipt({ references: ['ref-a'] })), { kind: 'late', invoiceId: 'a' });
  t.deepEqual(matchReferencedPayment([invoice('a', { status: 'cancelled' }), invoice('b')], receipt({ references: ['ref-a'] })), { kind: 'orphan' });
});

test('two invoices referenced by one transfer are ambiguous', (t) => {
  t.deepEqual(matchReferencedPayment([invoice('b'), invoice('a')], receipt({ references: ['ref-a', 'ref-b'] })), { kind: 'ambiguous', invoiceIds: ['b', 'a'] });
});

test('without a reference: the one pending exact invoice of that amount; several are ambiguous; none, an orphan', (t) => {
  const candidates = [invoice('c', { amountUnits: 2n }), invoice('b', { status: 'detected' }), invoice('a')];
  t.deepEqual(matchReferencedPayment(candidates, receipt()), { kind: 'invoice', invoiceId: 'a' }, 'the detected one takes no amount-matched receipt');
  t.deepEqual(matchReferencedPayment([invoice('b'), invoice('a')], receipt()), { kind: 'ambiguous', invoiceIds: ['b', 'a'] });
  t.deepEqual(matchReferencedPayment([invoice('a')], receipt({ amountUnits: 999_999n })), { kind: 'orphan' });
  t.deepEqual(
    matchReferencedPayment([invoice('a', { matchingMode: 'at_least' })], receipt()),
    { kind: 'orphan' },
    'an at_least invoice is paid by reference only',
  );
  t.deepEqual(matchReferencedPayment([invoice('a', { matchingMode: 'any' })], receipt({ references: [] })), { kind: 'orphan' });
});

test('an invoice created after the receipt existed is never its target, by reference or amount', (t) => {
  const young = invoice('a', { createdAt: new Date(later.getTime() + 1_000) });
  t.deepEqual(matchReferencedPayment([young], receipt({ references: ['ref-a'] })), { kind: 'orphan' });
  t.deepEqual(matchReferencedPayment([young], receipt()), { kind: 'orphan' });
});

test('a reference of another coin is no match by reference: the amount rule decides (the lookup gives only invoices of the receipt coin)', (t) => {
  // The USDC invoice ref-u is not among the candidates of a USDT receipt; a USDT invoice of that amount is.
  t.deepEqual(matchReferencedPayment([invoice('t')], receipt({ references: ['ref-u'] })), { kind: 'invoice', invoiceId: 't' });
});

test('the address rules stay as they were for chains without references', (t) => {
  // A single taking invoice at an address takes any amount there: what a reference chain must not do.
  t.deepEqual(matchPayment([invoice('a', { matchingMode: 'at_least' })], receipt({ amountUnits: 5n })), { kind: 'invoice', invoiceId: 'a' });
  t.deepEqual(matchReferencedPayment([invoice('a', { matchingMode: 'at_least' })], receipt({ amountUnits: 5n })), { kind: 'orphan' });
});

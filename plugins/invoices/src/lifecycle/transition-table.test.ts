import test from 'ava';
import { INVOICE_EVENT_TYPES, type InvoiceEventType } from '@gw/kernel';
import { MATCHING_MODES, type MatchingMode } from '../config.js';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status.js';
import type { Invoice } from '../models/invoice.js';
import { applyFact, type FactInput, type InvoiceState, type TransferState, type TransferStatus } from './invoice-state.js';
import {
  CANCELLABLE_STATUSES,
  EXPIRING_STATUSES,
  MATCH_CANDIDATE_STATUSES,
  PAID_STATUSES,
  SETTLEABLE_STATUSES,
  SETTLED_STATUSES,
  STATUS_TRAITS,
  statusesWhere,
  TAKING_STATUSES,
  TERMINAL_STATUSES,
  WAITING_STATUSES,
} from './status-traits.js';
import {
  FACTS,
  findTransition,
  isShort,
  NEW,
  REFUSALS,
  settlement,
  toleratedShortfall,
  TRANSITIONS,
  type Fact,
  type FactContext,
  type TransitionRow,
} from './transition-table.js';

/*
 * The transition table and applyFact without a database, exhaustively: every status × fact ×
 * matching mode × guard outcome (the transfers before the fact and what the fact brings are chosen
 * so that every condition of every row is met and missed), with and without the `once` events
 * already sent. Each outcome is checked twice: against the row the table gives for the context the
 * test computes itself, and against REFERENCE, the lifecycle written out by status (the table
 * transposed, from the spec and the settlement rule), so a changed row fails here until it is meant.
 */

const AMOUNT = 1000n;
const THRESHOLD = 2;
const NOW = new Date('2026-01-01T00:00:00Z');

type Outcome = { readonly refused: true } | { readonly refused?: false; readonly to: InvoiceStatus; readonly event?: InvoiceEventType };

/** What the test sees of the invoice after the fact's effect on its transfers. */
interface Observed {
  readonly mode: MatchingMode;
  /** The shortfall the invoice's underpayment tolerance forgives (base units). */
  readonly tolerance: bigint;
  readonly liveCount: number;
  readonly total: bigint;
  readonly allFinal: boolean;
  readonly uncountedFinal: boolean;
  readonly countedLost: boolean;
}

const short = (o: Observed) => o.liveCount > 0 && o.mode !== 'any' && o.total + o.tolerance < AMOUNT;
const settles = (o: Observed) => o.liveCount > 0 && o.allFinal && o.uncountedFinal;
const settledAs = (o: Observed): InvoiceStatus => (o.total > AMOUNT ? 'overpaid' : o.total + o.tolerance >= AMOUNT || o.mode === 'any' ? 'paid' : 'partial');
const refused: Outcome = { refused: true };
const stay = (status: InvoiceStatus, event?: InvoiceEventType): Outcome => ({ to: status, ...(event ? { event } : {}) });
const settle = (status: InvoiceStatus, o: Observed): Outcome => (settles(o) ? stay(settledAs(o), `invoice.${settledAs(o)}` as InvoiceEventType) : stay(status));
const revertCounted = (status: InvoiceStatus, o: Observed): Outcome => (o.countedLost ? stay('reverted', 'invoice.reverted') : stay(status));

type Reference = Readonly<Record<Exclude<Fact, 'attributed'>, (o: Observed) => Outcome>>;

/** A settled invoice: a new payment and a cancel are refused, it stays as it is unless a counted payment is reverted. */
const settledReference = (status: InvoiceStatus): Reference => ({
  payment_seen: () => refused,
  payment_confirmed: () => stay(status),
  payment_reverted: (o) => revertCounted(status, o),
  payment_dropped: () => stay(status),
  deadline_passed: () => stay(status),
  cancel_requested: () => refused,
  ambiguous_match: () => refused,
});

/** What each fact does to an invoice in each status (spec 3.1, the settlement rule, docs/invoice-lifecycle.md). */
const REFERENCE: Readonly<Record<InvoiceStatus, Reference>> = {
  pending: {
    payment_seen: () => stay('detected', 'invoice.detected'),
    payment_confirmed: () => stay('pending'),
    payment_reverted: () => stay('pending'),
    payment_dropped: () => stay('pending'),
    deadline_passed: () => stay('expired', 'invoice.expired'),
    cancel_requested: () => stay('cancelled'),
    ambiguous_match: () => stay('ambiguous'),
  },
  detected: {
    payment_seen: (o) => (short(o) ? stay('detected', 'invoice.partial') : stay('detected')),
    payment_confirmed: (o) => settle('detected', o),
    payment_reverted: (o) => (o.liveCount === 0 ? stay('pending') : stay('detected')),
    payment_dropped: (o) => (o.liveCount === 0 ? stay('pending') : short(o) ? stay('detected', 'invoice.partial') : stay('detected')),
    deadline_passed: () => stay('detected'),
    cancel_requested: () => stay('cancelled'),
    ambiguous_match: () => refused,
  },
  paid: settledReference('paid'),
  overpaid: settledReference('overpaid'),
  partial: {
    payment_seen: () => stay('partial'),
    payment_confirmed: (o) => settle('partial', o),
    payment_reverted: (o) => revertCounted('partial', o),
    payment_dropped: () => stay('partial'),
    deadline_passed: () => stay('expired', 'invoice.expired'),
    cancel_requested: () => refused,
    ambiguous_match: () => refused,
  },
  expired: {
    payment_seen: () => stay('expired'),
    payment_confirmed: (o) => (settles(o) ? stay('expired_paid_late', 'invoice.expired_paid_late') : stay('expired')),
    payment_reverted: () => stay('expired'),
    payment_dropped: () => stay('expired'),
    deadline_passed: () => stay('expired'),
    cancel_requested: () => refused,
    ambiguous_match: () => refused,
  },
  expired_paid_late: settledReference('expired_paid_late'),
  reverted: {
    payment_seen: () => stay('reverted'),
    payment_confirmed: (o) => settle('reverted', o),
    payment_reverted: () => stay('reverted'),
    payment_dropped: () => stay('reverted'),
    deadline_passed: () => stay('reverted'),
    cancel_requested: () => refused,
    ambiguous_match: () => refused,
  },
  cancelled: {
    payment_seen: () => refused,
    payment_confirmed: () => stay('cancelled'),
    payment_reverted: () => stay('cancelled'),
    payment_dropped: () => stay('cancelled'),
    deadline_passed: () => stay('cancelled'),
    cancel_requested: () => refused,
    ambiguous_match: () => refused,
  },
  ambiguous: {
    payment_seen: () => refused,
    payment_confirmed: () => stay('ambiguous'),
    payment_reverted: () => stay('ambiguous'),
    payment_dropped: () => stay('ambiguous'),
    deadline_passed: () => stay('expired', 'invoice.expired'),
    cancel_requested: () => refused,
    ambiguous_match: () => refused,
  },
};

/** Underpayment tolerances tried (issue 38): none, and 5 % of AMOUNT (50 units), which forgives JUST_SHORT but not half. */
const TOLERANCES: Readonly<Record<string, readonly [share: string, units: bigint]>> = { 'no tolerance': ['0', 0n], '5 % tolerance': ['0.05', 50n] };
const JUST_SHORT = AMOUNT - 30n;

/** Events sent at most once per invoice: a repeat sends nothing. */
const ONCE: readonly InvoiceEventType[] = ['invoice.detected', 'invoice.expired'];

/** A transfer before the fact: `counted` is counted in a settled status, `uncounted` live and waiting, `reverted` gone. */
type Prior = readonly [units: bigint, confirmations: number, standing: TransferStatus];

/** The transfers an invoice may have when a fact arrives (h0, h1, ... in order). */
const PRIORS: Readonly<Record<string, readonly Prior[]>> = {
  none: [],
  'half in the mempool': [[AMOUNT / 2n, 0, 'pending']],
  'half counted': [[AMOUNT / 2n, THRESHOLD, 'confirmed']],
  'all final, uncounted': [[AMOUNT, THRESHOLD, 'pending']],
  'just short, final, uncounted': [[JUST_SHORT, THRESHOLD, 'pending']],
  'all counted': [[AMOUNT, THRESHOLD, 'confirmed']],
  'more than asked, in the mempool': [[AMOUNT + 1n, 0, 'pending']],
  'half counted, half in the mempool': [
    [AMOUNT / 2n, THRESHOLD, 'confirmed'],
    [AMOUNT / 2n, 0, 'pending'],
  ],
  'half and all in the mempool': [
    [AMOUNT / 2n, 0, 'pending'],
    [AMOUNT, 0, 'pending'],
  ],
  'one reverted': [[AMOUNT, 0, 'reverted']],
};

const hash = (i: number) => `h${i}`;

/** The fact inputs tried for each fact, given the transfers before it. */
function inputsOf(fact: Exclude<Fact, 'attributed'>, prior: readonly Prior[]): { name: string; input: FactInput }[] {
  const payment = (txHash: string, amountUnits: bigint) => ({
    txHash,
    outputIndex: 0,
    amountUnits,
    confirmations: 0,
    blockHeight: null,
    blockHash: null,
    synthetic: false,
  });
  const keys = prior.map((_, i) => ({ txHash: hash(i), outputIndex: 0 }));
  const unknown = { txHash: 'unknown', outputIndex: 0 };
  switch (fact) {
    case 'payment_seen':
      return [
        { name: 'a new half', input: { fact, payment: payment('new', AMOUNT / 2n) } },
        { name: 'a new full', input: { fact, payment: payment('new', AMOUNT) } },
        { name: 'a new one just short', input: { fact, payment: payment('new', JUST_SHORT) } },
        { name: 'a new one above', input: { fact, payment: payment('new', AMOUNT + 1n) } },
        ...(prior.length > 0 ? [{ name: 'the first again, in full', input: { fact, payment: payment(hash(0), AMOUNT) } }] : []),
      ];
    case 'payment_confirmed': {
      const at = (confirmations: number) => keys.map((k) => ({ ...k, confirmations, blockHeight: 1n, blockHash: 'b1' }));
      return [
        { name: 'all at the threshold', input: { fact, updates: at(THRESHOLD) } },
        { name: 'all below the threshold', input: { fact, updates: at(1) } },
        { name: 'an unknown transfer', input: { fact, updates: [{ ...unknown, confirmations: THRESHOLD }] } },
      ];
    }
    case 'payment_reverted':
    case 'payment_dropped':
      return [
        ...keys.map((k, i) => ({ name: `transfer ${i}`, input: { fact, transfers: [k] } })),
        ...(keys.length > 1 ? [{ name: 'all transfers', input: { fact, transfers: keys } }] : []),
        { name: 'an unknown transfer', input: { fact, transfers: [unknown] } },
      ];
    default:
      return [{ name: 'the fact', input: { fact } }];
  }
}

function stateOf(status: InvoiceStatus, mode: MatchingMode, tolerance: string, prior: readonly Prior[], onceSent: boolean): InvoiceState {
  const invoice = {
    id: '01JINVOICE0000000000000000',
    amount_units: AMOUNT,
    matching_mode: mode,
    underpayment_tolerance: tolerance,
    confirmation_threshold: THRESHOLD,
    event_counts: {},
  } as unknown as Invoice;
  const transfers = prior.map(([units, confirmations, standing], i): TransferState => ({
    id: `t${i}`,
    txHash: hash(i),
    outputIndex: 0,
    amountUnits: units,
    confirmations,
    blockHeight: confirmations > 0 ? 1n : null,
    blockHash: confirmations > 0 ? 'b1' : null,
    status: standing,
    synthetic: false,
    detectedAt: NOW,
    confirmedAt: standing === 'confirmed' ? NOW : null,
    dirty: false,
  }));
  return { invoice, status, transfers, eventCounts: onceSent ? Object.fromEntries(ONCE.map((e) => [e, 1])) : {}, applied: [], changed: false };
}

/**
 * The test's own reading of the transfers after the fact's effect and before a settlement counts
 * them (applyFact computes it separately): a transfer counted only now was uncounted when the row
 * was chosen.
 */
function observe(mode: MatchingMode, tolerance: bigint, before: readonly TransferState[], after: readonly TransferState[]): Observed {
  const counted = (t: TransferState) => t.status === 'confirmed' && before.some((b) => b.txHash === t.txHash && b.status === 'confirmed');
  const live = after
    .filter((t) => t.status === 'pending' || t.status === 'confirmed')
    .map((t) => ({ ...t, status: counted(t) ? ('confirmed' as const) : ('pending' as const) }));
  const final = (t: TransferState) => t.confirmations >= THRESHOLD;
  return {
    mode,
    tolerance,
    liveCount: live.length,
    total: live.reduce((sum, t) => sum + t.amountUnits, 0n),
    allFinal: live.length > 0 && live.every(final),
    uncountedFinal: live.some((t) => t.status === 'pending' && final(t)),
    countedLost: before.some(
      (b) => b.status === 'confirmed' && after.some((a) => a.txHash === b.txHash && (a.status === 'reverted' || a.status === 'dropped')),
    ),
  };
}

const contextOf = (o: Observed): FactContext => ({
  liveUnits: o.total,
  amountUnits: AMOUNT,
  matchingMode: o.mode,
  toleranceUnits: o.tolerance,
  liveCount: o.liveCount,
  allFinal: o.allFinal,
  uncountedFinal: o.uncountedFinal,
  countedLost: o.countedLost,
  receiptFinal: false,
});

const snapshot = (transfers: readonly TransferState[]) => transfers.map(({ dirty: _dirty, id: _id, ...rest }) => rest);

test('every status × fact × matching mode × guard outcome: applyFact does what the table and the reference say', (t) => {
  const hit = new Map<TransitionRow, Set<string>>();
  let cases = 0;
  for (const status of INVOICE_STATUSES) {
    for (const fact of Object.keys(FACTS) as Fact[]) {
      if (fact === 'attributed') continue;
      for (const mode of MATCHING_MODES) {
        for (const [toleranceName, [tolerance, toleranceUnits]] of Object.entries(TOLERANCES)) {
          for (const [priorName, prior] of Object.entries(PRIORS)) {
            for (const onceSent of [false, true]) {
              // Each case starts from a fresh state: inputsOf only names transfers.
              for (const { name } of inputsOf(fact, prior)) {
                const state = stateOf(status, mode, tolerance, prior, onceSent);
                const input = inputsOf(fact, prior).find((i) => i.name === name)!.input;
                const label = `${status} × ${fact} (${name}) × ${mode}, ${toleranceName}, transfers: ${priorName}${onceSent ? ', once-events sent' : ''}`;
                const before = state.transfers.map((tr) => ({ ...tr }));
                const result = applyFact(state, input, NOW);
                cases++;
                const observed = observe(mode, toleranceUnits, before, state.transfers);
                const expected = REFERENCE[status][fact](observed);
                const tableRow = findTransition(status, fact, contextOf(observed));
                t.is(result.row, tableRow, `${label}: the row the table gives`);
                if (expected.refused) {
                  t.is(result.row, undefined, `${label}: refused`);
                  t.is(state.status, status, `${label}: a refused fact keeps the status`);
                  t.deepEqual(snapshot(state.transfers), snapshot(before), `${label}: a refused fact keeps the transfers`);
                  t.is(state.applied.length, 0, `${label}: a refused fact records nothing`);
                  continue;
                }
                if (!result.row) {
                  t.fail(`${label}: refused, expected ${expected.to}`);
                  continue;
                }
                (hit.get(result.row) ?? hit.set(result.row, new Set()).get(result.row)!).add(status);
                t.is(state.status, expected.to, `${label}: status`);
                const event = expected.event && !(onceSent && ONCE.includes(expected.event)) ? expected.event : undefined;
                t.is(result.transition?.event?.type, event, `${label}: event`);
                if (result.row.to !== 'same') t.is(result.row.to, state.status, `${label}: the row's status`);
                if (result.row.event && result.transition?.event) t.is(result.transition.event.type, result.row.event.type, `${label}: the row's event`);
                // A settlement counts every live transfer, also one that keeps the status (partial →
                // partial: a top-up still short); anything else counts none (the next settlement's
                // "one not yet counted" must not see the same money again).
                const settled = fact === 'payment_confirmed' && expected.event !== undefined && SETTLED_STATUSES.includes(expected.to);
                const newlyCounted = state.transfers.filter(
                  (tr) => tr.status === 'confirmed' && !before.some((b) => b.txHash === tr.txHash && b.status === 'confirmed'),
                );
                if (settled)
                  t.true(
                    state.transfers.every((tr) => tr.status !== 'pending'),
                    `${label}: settling counts every live transfer`,
                  );
                else t.deepEqual(newlyCounted, [], `${label}: no settlement, nothing counted`);
              }
            }
          }
        }
      }
    }
  }
  // Every guard of every row is met for every status it starts from (the cases reach every row),
  // except where an earlier unconditional row of the same fact takes the status first.
  const missed: string[] = [];
  TRANSITIONS.forEach((row, index) => {
    for (const from of row.from) {
      if (from === NEW || TRANSITIONS.slice(0, index).some((earlier) => earlier.fact === row.fact && earlier.when === 'always' && earlier.from.includes(from)))
        continue;
      if (!hit.get(row)?.has(from)) missed.push(`${row.fact}/${row.when} → ${row.to} from ${from}`);
    }
  });
  t.deepEqual(missed, [], 'rows no case reached');
  t.log(`${cases} cases`);
  t.true(cases > 1000, `${cases} cases`);
});

test('attribution creates a paid invoice only for a final receipt; no invoice can be attributed', (t) => {
  const context = (receiptFinal: boolean): FactContext => ({
    liveUnits: AMOUNT,
    amountUnits: AMOUNT,
    matchingMode: 'exact',
    toleranceUnits: 0n,
    liveCount: 1,
    allFinal: receiptFinal,
    uncountedFinal: receiptFinal,
    countedLost: false,
    receiptFinal,
  });
  const row = findTransition(NEW, 'attributed', context(true));
  t.is(row?.to, 'paid');
  t.deepEqual(row?.event, { type: 'invoice.paid', ids: 'once' });
  t.is(findTransition(NEW, 'attributed', context(false)), undefined);
  for (const status of INVOICE_STATUSES) t.is(findTransition(status, 'attributed', context(true)), undefined, status);
});

test('the refusals are exactly the (status, fact) pairs without a row', (t) => {
  for (const status of INVOICE_STATUSES) {
    for (const fact of Object.keys(FACTS) as Fact[]) {
      if (fact === 'attributed') continue;
      const hasRow = TRANSITIONS.some((row) => row.fact === fact && row.from.includes(status));
      const listed = REFUSALS.some((r) => r.fact === fact && r.from.includes(status));
      t.is(listed, !hasRow, `${status} × ${fact}`);
    }
  }
  t.true(REFUSALS.some((r) => r.fact === 'attributed' && r.from.includes(NEW)));
});

test('the status subsets derived from the table and the traits are those the spec and the code have always used', (t) => {
  t.deepEqual(CANCELLABLE_STATUSES, ['pending', 'detected']);
  t.deepEqual(WAITING_STATUSES, ['pending', 'detected', 'partial', 'ambiguous']);
  t.deepEqual(TERMINAL_STATUSES, ['paid', 'overpaid', 'expired', 'expired_paid_late', 'reverted', 'cancelled']);
  t.deepEqual(PAID_STATUSES, ['paid', 'overpaid', 'expired_paid_late']);
  t.deepEqual(SETTLED_STATUSES, ['paid', 'overpaid', 'partial', 'expired_paid_late']);
  t.deepEqual(SETTLEABLE_STATUSES, ['detected', 'partial', 'expired', 'reverted']);
  t.deepEqual(EXPIRING_STATUSES, ['pending', 'partial', 'ambiguous']);
  t.deepEqual(TAKING_STATUSES, ['pending', 'detected', 'partial', 'reverted']);
  t.deepEqual(MATCH_CANDIDATE_STATUSES, ['pending', 'detected', 'partial', 'expired', 'reverted', 'ambiguous']);
  t.deepEqual(statusesWhere({ paid: true, pastDeadline: false }), ['paid', 'overpaid']);
});

test('the traits agree with the table', (t) => {
  for (const status of INVOICE_STATUSES) {
    const traits = STATUS_TRAITS[status];
    // The deadline ends only open invoices, and what it enters is past the deadline and closed.
    if (EXPIRING_STATUSES.includes(status)) t.true(traits.open, `${status} expires, so it is open`);
    if (traits.paid) t.true(traits.settled, `${status} is paid, so a settlement enters it`);
    if (CANCELLABLE_STATUSES.includes(status)) t.true(traits.open, `${status} can be cancelled, so it is open`);
  }
  for (const row of TRANSITIONS) {
    if (row.fact === 'deadline_passed' && row.to !== 'same')
      t.true(STATUS_TRAITS[row.to].pastDeadline && !STATUS_TRAITS[row.to].open, `deadline_passed enters ${row.to}`);
    // A settlement of an invoice past its deadline stays past it.
    if (row.to !== 'same' && row.from.some((from) => from !== NEW && STATUS_TRAITS[from].pastDeadline))
      t.true(STATUS_TRAITS[row.to].pastDeadline || row.fact === 'payment_reverted', `${row.fact} → ${row.to}`);
  }
  t.deepEqual(
    INVOICE_EVENT_TYPES.filter((e) => TRANSITIONS.some((row) => row.event?.type === e && row.event.ids === 'once' && row.from.some((from) => from !== NEW))),
    ONCE,
  );
});

test('a top-up that settles a partial invoice still short counts it: later confirmations settle and announce nothing', (t) => {
  const state = stateOf(
    'partial',
    'exact',
    '0',
    [
      [AMOUNT / 4n, THRESHOLD, 'confirmed'],
      [AMOUNT / 4n, 1, 'pending'],
    ],
    true,
  );
  const at = (confirmations: number) => ({
    fact: 'payment_confirmed' as const,
    updates: [{ txHash: hash(1), outputIndex: 0, confirmations, blockHeight: 2n, blockHash: 'b2' }],
  });
  const settled = applyFact(state, at(THRESHOLD), NOW);
  t.is(settled.transition?.event?.type, 'invoice.partial');
  t.is(settled.transition?.event?.data.paid_units, (AMOUNT / 2n).toString());
  t.is(state.status, 'partial');
  t.deepEqual(
    state.transfers.map((tr) => tr.status),
    ['confirmed', 'confirmed'],
  );
  for (let more = 1; more <= 3; more++) {
    const later = applyFact(state, at(THRESHOLD + more), NOW);
    t.is(later.row?.to, 'same', `confirmation ${THRESHOLD + more}: nothing to settle`);
    t.is(later.transition, undefined, `confirmation ${THRESHOLD + more}: no event`);
  }
  t.is(state.eventCounts['invoice.partial'], 1);
});

test('underpayment tolerance: the shortfall forgiven is the amount times the share, rounded down; at it the total is paid, one unit below partial', (t) => {
  t.is(toleratedShortfall(1000n, '0'), 0n);
  t.is(toleratedShortfall(1000n, '0.005'), 5n);
  t.is(toleratedShortfall(999n, '0.005'), 4n, '4.995 rounds down: never more than the share');
  t.is(toleratedShortfall(10n ** 18n, '0.05'), 5n * 10n ** 16n);
  for (const matchingMode of ['exact', 'at_least'] as const) {
    const at = (liveUnits: bigint) => ({ liveUnits, amountUnits: 1000n, matchingMode, toleranceUnits: 5n });
    t.is(settlement(at(995n)), 'paid', matchingMode);
    t.false(isShort(at(995n)));
    t.is(settlement(at(994n)), 'partial', matchingMode);
    t.true(isShort(at(994n)));
    t.is(settlement(at(1001n)), 'overpaid', matchingMode);
    t.is(settlement({ ...at(995n), toleranceUnits: 0n }), 'partial', `${matchingMode}: no tolerance, the old rule`);
    t.is(settlement({ liveUnits: 995n, amountUnits: 1000n, matchingMode }), 'partial', `${matchingMode}: without toleranceUnits none is forgiven`);
  }
});

test('underpayment tolerance through applyFact: a payment just short settles paid, its event telling what fell short; without it partial', (t) => {
  const run = (tolerance: string) => {
    const state = stateOf('pending', 'exact', tolerance, [], false);
    const payment = { txHash: 'p', outputIndex: 0, amountUnits: 996n, confirmations: THRESHOLD, blockHeight: 1n, blockHash: 'b1', synthetic: false };
    applyFact(state, { fact: 'payment_seen', payment }, NOW);
    applyFact(state, { fact: 'payment_confirmed', updates: [payment] }, NOW);
    return state;
  };
  const tolerated = run('0.005');
  t.is(tolerated.status, 'paid');
  t.deepEqual(
    tolerated.applied.map((a) => a.event?.type),
    ['invoice.detected', 'invoice.paid'],
  );
  t.like(tolerated.applied[1]!.event!.data, { paid_units: '996', remaining_units: '4' });
  const strict = run('0');
  t.is(strict.status, 'partial');
  t.deepEqual(
    strict.applied.map((a) => a.event?.type),
    ['invoice.detected', 'invoice.partial'],
  );
  t.is(run('0.003').status, 'partial', '0.3 % of 1000 forgives 3 units, not 4');
});

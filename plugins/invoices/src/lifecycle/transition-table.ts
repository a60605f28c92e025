import { scaledDecimal, type InvoiceEventType } from '@gw/kernel';
import { INVOICE_STATUSES, type InvoiceStatus } from '../invoice-status.js';

/**
 * The invoice lifecycle as data: every status change of every invoice is one row of
 * {@link TRANSITIONS}, chosen by (current status, fact, condition). Watchers, the sandbox, the
 * expiry job, cancel and orphan attribution only report facts; the lifecycle finds the row and
 * applies it. `docs/invoice-lifecycle.md` is generated from this file
 * (`scripts/generate-lifecycle-doc.ts`; CI fails when they drift).
 */

/**
 * What producers report. Payments are transfers attributed to the invoice by the matcher.
 * A transfer is *live* until it is reverted (reorganised away) or dropped (left the mempool
 * without a block); only live transfers count. It is *final* once it has the invoice's
 * `confirmation_threshold` confirmations.
 */
export const FACTS = {
  payment_seen: 'A transfer to the invoice is observed (mempool or block), or one reverted or dropped before is observed again.',
  payment_confirmed: 'The confirmation counts of the invoice’s transfers changed (new blocks on the chain, or sandbox clock/advance).',
  payment_reverted: 'A transfer that was in a block left the chain (reorganisation).',
  payment_dropped: 'A transfer seen only in the mempool left it without a block: not mined within the mempool timeout, or replaced.',
  deadline_passed: 'expires_at has passed (the expiry job, or sandbox simulate-expire).',
  cancel_requested: 'The partner or operator cancels the invoice (REST, sandbox, MCP, CLI).',
  ambiguous_match: 'A payment at a shared (overlay) address equals the amount of several pending invoices there.',
  attributed: 'The partner attributes an orphan payment to a new external_id (spec 4.3).',
} as const;
export type Fact = keyof typeof FACTS;

/** What the lifecycle knows of an invoice when it looks a row up (after the fact's effect on its transfers). */
export interface FactContext {
  /** Sum of the live transfers, base units. */
  readonly liveUnits: bigint;
  readonly amountUnits: bigint;
  readonly matchingMode: 'exact' | 'at_least' | 'any';
  /**
   * How far below the amount a total still counts as the amount (base units): the invoice's
   * underpayment tolerance of its amount, rounded down ({@link toleratedShortfall}); 0 when off.
   */
  readonly toleranceUnits: bigint;
  /** Live transfers. */
  readonly liveCount: number;
  /** Every live transfer has the threshold's confirmations. */
  readonly allFinal: boolean;
  /** A live transfer is final but not yet counted in a settled status: there is something to settle. */
  readonly uncountedFinal: boolean;
  /** A transfer that had been counted in a settled status left the chain through this fact. */
  readonly countedLost: boolean;
  /** Attribution: the receipt has the chain's confirmation threshold. */
  readonly receiptFinal: boolean;
}

/** What the settlement rule reads of an invoice; without `toleranceUnits` no shortfall is tolerated. */
export type AmountContext = Pick<FactContext, 'liveUnits' | 'amountUnits' | 'matchingMode'> & Partial<Pick<FactContext, 'toleranceUnits'>>;

/**
 * The settlement rule (decided once for every producer): when every live transfer is final, the
 * sum of the live transfers settles the invoice. More than the amount is `overpaid` in every mode
 * (the partner always learns that more arrived than was asked; overpaid is a paid status); the
 * amount exactly is `paid`; less is `partial` for `exact` and `at_least`, and `paid` for `any`
 * (it accepts any amount). `exact` differs from `at_least` in matching: only exact invoices may
 * share an address (spec 2.1 rule 2), where the amount picks the invoice. An invoice with an
 * underpayment tolerance (issue 38, a project policy; off by default) counts a total short by at
 * most `toleranceUnits` as the amount: `paid`.
 */
export function settlement(context: AmountContext): 'paid' | 'overpaid' | 'partial' {
  if (context.liveUnits > context.amountUnits) return 'overpaid';
  return isShort(context) ? 'partial' : 'paid';
}

/** Whether the live total falls short of the amount (less its tolerated shortfall) in a mode that does not accept less. */
export function isShort(context: AmountContext): boolean {
  return context.matchingMode !== 'any' && context.liveUnits + (context.toleranceUnits ?? 0n) < context.amountUnits;
}

/**
 * The shortfall an underpayment tolerance (a share of the amount, decimal string "0" to "0.05")
 * forgives, in base units: floor(amount × tolerance). Exact: the share's digits over a power of ten.
 */
export function toleratedShortfall(amountUnits: bigint, tolerance: string): bigint {
  const share = scaledDecimal(tolerance);
  return (amountUnits * share.digits) / 10n ** BigInt(share.scale);
}

/** Named conditions a row may require, each with the sentence the docs print. */
export const CONDITIONS = {
  always: { text: '—', test: () => true },
  short: {
    text: 'the live total is below the amount, less its tolerated shortfall (mode exact or at_least)',
    test: (c: FactContext) => c.liveCount > 0 && isShort(c),
  },
  not_short: {
    text: 'the live total covers the amount, less its tolerated shortfall (or the mode is any)',
    test: (c: FactContext) => c.liveCount > 0 && !isShort(c),
  },
  none_live: { text: 'no live transfer is left', test: (c: FactContext) => c.liveCount === 0 },
  settles_overpaid: {
    text: 'every live transfer is final, one not yet counted and the total is above the amount',
    test: (c: FactContext) => settles(c) && settlement(c) === 'overpaid',
  },
  settles_paid: {
    text: 'every live transfer is final, one not yet counted and the total equals the amount, or falls short of it by no more than the tolerated shortfall (any: any total)',
    test: (c: FactContext) => settles(c) && settlement(c) === 'paid',
  },
  settles_partial: {
    text: 'every live transfer is final, one not yet counted and the total is below the amount by more than the tolerated shortfall (exact, at_least)',
    test: (c: FactContext) => settles(c) && settlement(c) === 'partial',
  },
  settles: { text: 'every live transfer is final, one not yet counted', test: (c: FactContext) => settles(c) },
  counted_lost: { text: 'a transfer counted in the settled status left the chain', test: (c: FactContext) => c.countedLost },
  receipt_final: { text: 'the receipt has the chain’s confirmation threshold', test: (c: FactContext) => c.receiptFinal },
} as const satisfies Record<string, { text: string; test: (context: FactContext) => boolean }>;
export type Condition = keyof typeof CONDITIONS;

function settles(c: FactContext): boolean {
  return c.liveCount > 0 && c.allFinal && c.uncountedFinal;
}

/**
 * How often an event is sent. `once`: at most once per invoice, a repeat sends nothing (a payment
 * detected again after a reorganisation is not announced twice). `each`: once per occurrence (a
 * fresh `invoice.paid` after a re-confirmation). An event's id is derived from (invoice, event type,
 * occurrence) with the time of the change as its ULID time: the n-th `invoice.paid` of an invoice is
 * always the same event, sent exactly when the change that causes it commits.
 */
export type EventIdPolicy = 'once' | 'each';

/** The pseudo-status of an invoice that does not exist yet (orphan attribution creates it). */
export const NEW = 'new' as const;

export interface TransitionRow {
  readonly from: readonly (InvoiceStatus | typeof NEW)[];
  readonly fact: Fact;
  readonly when: Condition;
  /**
   * The new status; `same` keeps it (the fact may still change transfers or send an event). A
   * `payment_confirmed` row naming a settled status is a settlement and counts the transfers, even
   * when it names the status the invoice is in (partial → partial).
   */
  readonly to: InvoiceStatus | 'same';
  readonly event?: { readonly type: InvoiceEventType; readonly ids: EventIdPolicy };
  /** Why, in one sentence, for the docs. */
  readonly why: string;
}

const SETTLING: readonly InvoiceStatus[] = ['detected', 'partial', 'reverted'];
const ALL = INVOICE_STATUSES;

/**
 * The table. For a (status, fact) the first row whose `from` holds the status and whose condition
 * holds is applied; a pair with no row is refused (see {@link REFUSALS}). Rows with `to: 'same'`
 * and no event change transfers only.
 */
export const TRANSITIONS: readonly TransitionRow[] = [
  // payment_seen
  {
    from: ['pending'],
    fact: 'payment_seen',
    when: 'always',
    to: 'detected',
    event: { type: 'invoice.detected', ids: 'once' },
    why: 'First sight of a payment, mempool or block, whatever its amount; data carries the total and what is still due.',
  },
  {
    from: ['detected'],
    fact: 'payment_seen',
    when: 'short',
    to: 'same',
    event: { type: 'invoice.partial', ids: 'each' },
    why: 'Another payment arrived and the total is still short: the payer can be asked for the rest before the payments confirm.',
  },
  { from: ['detected'], fact: 'payment_seen', when: 'always', to: 'same', why: 'A further payment; it is counted when it confirms.' },
  {
    from: ['partial', 'reverted', 'expired'],
    fact: 'payment_seen',
    when: 'always',
    to: 'same',
    why: 'Counted when it confirms (a top-up, a re-mined payment, a late payment).',
  },

  // payment_confirmed
  {
    from: SETTLING,
    fact: 'payment_confirmed',
    when: 'settles_overpaid',
    to: 'overpaid',
    event: { type: 'invoice.overpaid', ids: 'each' },
    why: 'Settled above the amount.',
  },
  {
    from: SETTLING,
    fact: 'payment_confirmed',
    when: 'settles_paid',
    to: 'paid',
    event: { type: 'invoice.paid', ids: 'each' },
    why: 'Settled at the amount (after a reorganisation: a fresh invoice.paid).',
  },
  {
    from: SETTLING,
    fact: 'payment_confirmed',
    when: 'settles_partial',
    to: 'partial',
    event: { type: 'invoice.partial', ids: 'each' },
    why: 'Settled below the amount; the invoice takes top-ups until it expires.',
  },
  {
    from: ['expired'],
    fact: 'payment_confirmed',
    when: 'settles',
    to: 'expired_paid_late',
    event: { type: 'invoice.expired_paid_late', ids: 'each' },
    why: 'A payment after expiry settled: never paid at the old rate.',
  },
  {
    from: ALL,
    fact: 'payment_confirmed',
    when: 'always',
    to: 'same',
    why: 'Counts recorded, nothing settles yet; a closed invoice’s transfers stop being counted.',
  },

  // payment_reverted
  {
    from: ['paid', 'overpaid', 'partial', 'expired_paid_late'],
    fact: 'payment_reverted',
    when: 'counted_lost',
    to: 'reverted',
    event: { type: 'invoice.reverted', ids: 'each' },
    why: 'Money the settled status counted is gone; the invoice waits for it to be mined again.',
  },
  {
    from: ['detected'],
    fact: 'payment_reverted',
    when: 'none_live',
    to: 'pending',
    why: 'The only payments were never final; silently back to waiting (no event: nothing was settled).',
  },
  { from: ALL, fact: 'payment_reverted', when: 'always', to: 'same', why: 'An uncounted transfer left the chain; nothing settled changes.' },

  // payment_dropped
  {
    from: ['detected'],
    fact: 'payment_dropped',
    when: 'none_live',
    to: 'pending',
    why: 'The payment never made it into a block: the invoice waits again and expires as usual (a dust payment cannot hold it open).',
  },
  {
    from: ['detected'],
    fact: 'payment_dropped',
    when: 'short',
    to: 'same',
    event: { type: 'invoice.partial', ids: 'each' },
    why: 'What is left falls short (a payment replaced by a smaller one).',
  },
  { from: ALL, fact: 'payment_dropped', when: 'always', to: 'same', why: 'An unmined transfer left the mempool; nothing settled changes.' },

  // deadline_passed
  {
    from: ['pending', 'partial', 'ambiguous'],
    fact: 'deadline_passed',
    when: 'always',
    to: 'expired',
    event: { type: 'invoice.expired', ids: 'once' },
    why: 'Nothing (or not enough) arrived in time; the address goes into cooldown, later payments are late.',
  },
  {
    from: ALL,
    fact: 'deadline_passed',
    when: 'always',
    to: 'same',
    why: 'A seen payment is waited for until it confirms or is dropped; settled invoices do not expire.',
  },

  // cancel_requested
  {
    from: ['pending', 'detected'],
    fact: 'cancel_requested',
    when: 'always',
    to: 'cancelled',
    why: 'Cancelled (spec 3.1); no webhook event type exists for it. The address goes into cooldown.',
  },

  // ambiguous_match
  {
    from: ['pending'],
    fact: 'ambiguous_match',
    when: 'always',
    to: 'ambiguous',
    why: 'Several pending invoices at a shared address match the amount; the receipt waits in the orphan inbox and the invoices until they expire (no event: the spec has none).',
  },

  // attributed
  {
    from: [NEW],
    fact: 'attributed',
    when: 'receipt_final',
    to: 'paid',
    event: { type: 'invoice.paid', ids: 'once' },
    why: 'An orphan receipt attributed by the partner: a new invoice directly paid for the receipt’s amount.',
  },
];

/**
 * Why the (status, fact) pairs without a row are refused, and what the caller answers. The statuses
 * are those no row of the fact starts from (attribution's refusal depends on its condition only).
 */
export const REFUSALS: readonly { readonly from: readonly (InvoiceStatus | typeof NEW)[]; readonly fact: Fact; readonly answer: string }[] = [
  {
    from: statusesRefusing('payment_seen'),
    fact: 'payment_seen',
    answer: 'The invoice takes no payments: the matcher never offers it one (the receipt is an orphan, or a late payment of an expired invoice there).',
  },
  { from: statusesRefusing('cancel_requested'), fact: 'cancel_requested', answer: '409 invoice_not_cancellable (sandbox: the same); nothing changes.' },
  { from: statusesRefusing('ambiguous_match'), fact: 'ambiguous_match', answer: 'Only pending invoices are matched by amount at a shared address.' },
  { from: [NEW], fact: 'attributed', answer: 'A receipt below the confirmation threshold: 409 orphan_not_confirmed; nothing is created.' },
];

/*
 * Status subsets read off the table, in the order of INVOICE_STATUSES. Other code asks these (or
 * the traits beside the table, status-traits.ts) instead of listing statuses itself, so a row
 * changed here changes every place that depends on it.
 */

/** Statuses some row of `fact` starts from, whatever its condition (the others refuse the fact). */
export function statusesAccepting(fact: Fact): readonly InvoiceStatus[] {
  return INVOICE_STATUSES.filter((status) => TRANSITIONS.some((row) => row.fact === fact && row.from.includes(status)));
}

/** Statuses no row of `fact` starts from. */
export function statusesRefusing(fact: Fact): readonly InvoiceStatus[] {
  const accepting = statusesAccepting(fact);
  return INVOICE_STATUSES.filter((status) => !accepting.includes(status));
}

/** Statuses from which a row of `fact` leads to `to` (`to` itself included when a row keeps it by naming it). */
export function statusesReaching(fact: Fact, to: InvoiceStatus): readonly InvoiceStatus[] {
  return INVOICE_STATUSES.filter((status) => TRANSITIONS.some((row) => row.fact === fact && row.from.includes(status) && row.to === to));
}

/** Statuses from which a row of `fact` can move an invoice to another status. */
export function statusesLeaving(fact: Fact): readonly InvoiceStatus[] {
  return INVOICE_STATUSES.filter((status) =>
    TRANSITIONS.some((row) => row.fact === fact && row.from.includes(status) && row.to !== 'same' && row.to !== status),
  );
}

/** Statuses a row of `fact` can move an invoice into (from another status). */
export function statusesReachedBy(fact: Fact): readonly InvoiceStatus[] {
  return INVOICE_STATUSES.filter((status) => TRANSITIONS.some((row) => row.fact === fact && row.to === status && row.from.some((from) => from !== status)));
}

/** The row for (status, fact) under `context`, or undefined when the table refuses the fact. */
export function findTransition(status: InvoiceStatus | typeof NEW, fact: Fact, context: FactContext): TransitionRow | undefined {
  return TRANSITIONS.find((row) => row.fact === fact && row.from.includes(status) && CONDITIONS[row.when].test(context));
}

/** Every (from, to) status pair some row allows, for invariant checks. */
export function allowedMoves(): ReadonlySet<string> {
  const moves = new Set<string>();
  for (const row of TRANSITIONS) for (const from of row.from) moves.add(`${from}>${row.to === 'same' ? from : row.to}`);
  return moves;
}

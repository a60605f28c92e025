import { derivedIdAt, newId, type InvoiceEventType } from '@gw/kernel';
import type { InvoiceStatus } from '../invoice-status.js';
import type { Invoice } from '../models/invoice.js';
import type { InvoiceTransaction } from '../models/invoice-transaction.js';
import { SETTLED_STATUSES } from './status-traits.js';
import { findTransition, toleratedShortfall, type Fact, type FactContext, type NEW, type TransitionRow } from './transition-table.js';

/**
 * The lifecycle's working copy of one invoice: its row and transfers, changed in memory by
 * {@link applyFact} (pure: no I/O), then written by the lifecycle store in a few set-based
 * statements for a whole batch.
 */

/** A transfer's standing: `pending` live and not yet counted, `confirmed` counted in a settled status, `reverted`/`dropped` gone. */
export type TransferStatus = 'pending' | 'confirmed' | 'reverted' | 'dropped';

export interface TransferState {
  readonly id: string;
  readonly txHash: string;
  readonly outputIndex: number;
  amountUnits: bigint;
  confirmations: number;
  blockHeight: bigint | null;
  blockHash: string | null;
  status: TransferStatus;
  readonly synthetic: boolean;
  readonly detectedAt: Date;
  confirmedAt: Date | null;
  /** Written back by the store. */
  dirty: boolean;
}

/** A row applied to the invoice, with its event (if one is sent). */
export interface AppliedTransition {
  readonly fact: Fact;
  readonly row: TransitionRow;
  /** `new` for an invoice the transition created (orphan attribution). */
  readonly from: InvoiceStatus | typeof NEW;
  readonly to: InvoiceStatus;
  readonly event?: { readonly type: InvoiceEventType; readonly id: string; readonly data: Record<string, unknown> };
  readonly details: Record<string, unknown>;
  /** The transfers as they stood after this transition (the event's invoice view). */
  readonly transfers: readonly TransferState[];
}

export interface InvoiceState {
  readonly invoice: Invoice;
  status: InvoiceStatus;
  readonly transfers: TransferState[];
  /** Events sent so far per type (the `each` id policy numbers them). */
  eventCounts: Record<string, number>;
  readonly applied: AppliedTransition[];
  /** The status or the event counts changed: the invoice row is written back. */
  changed: boolean;
}

/** One receipt on a chain: which transfer output, how much, and where it stands. */
export interface ReceiptFields {
  readonly txHash: string;
  readonly outputIndex: number;
  readonly amountUnits: bigint;
  /** 0 while only in the mempool; else head - height + 1. */
  readonly confirmations: number;
  readonly blockHeight: bigint | null;
  readonly blockHash: string | null;
}

/** The receipt fields of `source` alone (a wider object's other fields left behind). */
export function receiptOf(source: ReceiptFields): ReceiptFields {
  const { txHash, outputIndex, amountUnits, confirmations, blockHeight, blockHash } = source;
  return { txHash, outputIndex, amountUnits, confirmations, blockHeight, blockHash };
}

/** A transfer as a fact reports it. */
export interface PaymentFact extends ReceiptFields {
  readonly synthetic: boolean;
  /** Extra `data` of the event this payment causes (chain-specific details, sandbox echoes). */
  readonly eventData?: Readonly<Record<string, unknown>>;
}

/** New confirmation count (and block, once known) of one transfer. */
export interface ConfirmationFact {
  readonly txHash: string;
  readonly outputIndex: number;
  readonly confirmations: number;
  readonly blockHeight?: bigint | null;
  readonly blockHash?: string | null;
}

export interface TransferKey {
  readonly txHash: string;
  readonly outputIndex: number;
}

/** What a fact brings; the fact kind says which part applies. */
export type FactInput =
  | { readonly fact: 'payment_seen'; readonly payment: PaymentFact }
  | {
      readonly fact: 'payment_confirmed';
      readonly updates: readonly ConfirmationFact[];
      /** Extra `data` of the event a settlement sends. */ readonly eventData?: Readonly<Record<string, unknown>>;
    }
  | { readonly fact: 'payment_reverted' | 'payment_dropped'; readonly transfers: readonly TransferKey[] }
  | { readonly fact: 'deadline_passed' | 'cancel_requested' | 'ambiguous_match' };

/** The outcome of one fact: the row applied, or none (refused). */
export interface StepResult {
  readonly row: TransitionRow | undefined;
  readonly transition?: AppliedTransition;
}

export function stateOf(invoice: Invoice, transactions: readonly InvoiceTransaction[]): InvoiceState {
  return {
    invoice,
    status: invoice.status,
    eventCounts: { ...(invoice.event_counts ?? {}) },
    applied: [],
    changed: false,
    transfers: transactions.map((tx) => ({
      id: tx.id,
      txHash: tx.tx_hash,
      outputIndex: tx.output_index,
      amountUnits: tx.amount_units,
      confirmations: tx.confirmations,
      blockHeight: tx.block_height === null ? null : BigInt(tx.block_height),
      blockHash: tx.block_hash,
      status: tx.status,
      synthetic: tx.synthetic,
      detectedAt: tx.detected_at,
      confirmedAt: tx.confirmed_at,
      dirty: false,
    })),
  };
}

/** Live transfers: neither reverted nor dropped. */
export function liveTransfers(state: { readonly transfers: readonly TransferState[] }): TransferState[] {
  return state.transfers.filter((t) => t.status === 'pending' || t.status === 'confirmed');
}

export function liveUnits(state: { readonly transfers: readonly TransferState[] }): bigint {
  return liveTransfers(state).reduce((sum, t) => sum + t.amountUnits, 0n);
}

/** Final: in a block (at least one confirmation) with the invoice's threshold of confirmations. */
export function isFinal(transfer: Pick<TransferState, 'confirmations'>, threshold: number): boolean {
  return transfer.confirmations >= Math.max(threshold, 1);
}

function find(state: InvoiceState, key: TransferKey): TransferState | undefined {
  return state.transfers.find((t) => t.txHash === key.txHash && t.outputIndex === key.outputIndex);
}

/**
 * Applies one fact to the working copy through the transition table: first its effect on the
 * transfers, then the row for (status, fact, condition), whose new status and event are recorded
 * in `state.applied`. A refused fact (no row) changes nothing at all: the transfers are restored.
 */
export function applyFact(state: InvoiceState, input: FactInput, now: Date, extraDetails: Record<string, unknown> = {}): StepResult {
  const threshold = state.invoice.confirmation_threshold;
  const before = state.transfers.map((t) => ({ ...t }));
  let countedLost = false;
  let moved = false;
  let payment: PaymentFact | undefined;
  switch (input.fact) {
    case 'payment_seen': {
      moved = true;
      payment = input.payment;
      const existing = find(state, payment);
      if (existing) {
        Object.assign(existing, {
          amountUnits: payment.amountUnits,
          confirmations: payment.confirmations,
          blockHeight: payment.blockHeight,
          blockHash: payment.blockHash,
          status: 'pending',
          confirmedAt: null,
          dirty: true,
        });
      } else {
        state.transfers.push({
          id: newId(),
          ...receiptOf(payment),
          status: 'pending',
          synthetic: payment.synthetic,
          detectedAt: now,
          confirmedAt: null,
          dirty: true,
        });
      }
      break;
    }
    case 'payment_confirmed':
      for (const update of input.updates) {
        const transfer = find(state, update);
        if (!transfer || (transfer.status !== 'pending' && transfer.status !== 'confirmed')) continue;
        if (
          transfer.confirmations !== update.confirmations ||
          (update.blockHeight !== undefined && transfer.blockHeight !== update.blockHeight) ||
          (update.blockHash !== undefined && transfer.blockHash !== update.blockHash)
        ) {
          transfer.confirmations = update.confirmations;
          if (update.blockHeight !== undefined) transfer.blockHeight = update.blockHeight;
          if (update.blockHash !== undefined) transfer.blockHash = update.blockHash;
          transfer.dirty = true;
        }
      }
      break;
    case 'payment_reverted':
    case 'payment_dropped':
      for (const key of input.transfers) {
        const transfer = find(state, key);
        if (!transfer || (transfer.status !== 'pending' && transfer.status !== 'confirmed')) continue;
        if (transfer.status === 'confirmed') countedLost = true;
        moved = true;
        transfer.status = input.fact === 'payment_reverted' ? 'reverted' : 'dropped';
        transfer.confirmations = 0;
        transfer.confirmedAt = null;
        transfer.dirty = true;
      }
      break;
    default:
      break;
  }
  const live = liveTransfers(state);
  const total = live.reduce((sum, t) => sum + t.amountUnits, 0n);
  const context: FactContext = {
    liveUnits: total,
    amountUnits: state.invoice.amount_units,
    matchingMode: state.invoice.matching_mode,
    // Invoices created before the tolerance existed have none (the column's default).
    toleranceUnits: toleratedShortfall(state.invoice.amount_units, state.invoice.underpayment_tolerance ?? '0'),
    liveCount: live.length,
    allFinal: live.length > 0 && live.every((t) => isFinal(t, threshold)),
    uncountedFinal: live.some((t) => t.status === 'pending' && isFinal(t, threshold)),
    countedLost,
    receiptFinal: false,
  };
  const row = findTransition(state.status, input.fact, context);
  if (!row) {
    state.transfers.splice(0, state.transfers.length, ...before);
    return { row: undefined };
  }
  const from = state.status;
  const to = row.to === 'same' ? from : row.to;
  // Settling counts every live transfer; they stay counted until one leaves the chain. A settlement
  // is a payment_confirmed row naming a settled status, also the one that keeps it (partial →
  // partial, a top-up still short): left uncounted, its transfers would settle again at each later
  // confirmation and re-announce the same money (one invoice.partial per block).
  if (input.fact === 'payment_confirmed' && row.to !== 'same' && SETTLED_STATUSES.includes(to)) {
    for (const t of live) {
      if (t.status !== 'confirmed') {
        t.status = 'confirmed';
        t.confirmedAt = now;
        t.dirty = true;
      }
    }
  }
  // A row that keeps the status and sends nothing is recorded only when payments came or went
  // (confirmation counts alone are written to the transfers, not the audit log).
  if (to === from && !row.event && !moved) return { row };
  // An invoice sends invoice.partial at most once per write of its working copy (issue 33, finding
  // 11: a flood of small transfers sent one each, every body carrying the whole list): an earlier
  // one not yet written is withdrawn, and this one, with the newest totals and status, takes its
  // occurrence number.
  if (row.event?.type === 'invoice.partial') {
    const earlier = state.applied.findIndex((a) => a.event?.type === 'invoice.partial');
    if (earlier >= 0) withdrawEvent(state, earlier);
  }
  // Events of one command are a millisecond apart, in the order they happened.
  const event = row.event ? nextEvent(state, row.event.type, row.event.ids, new Date(now.getTime() + state.applied.length)) : undefined;
  const details: Record<string, unknown> = {
    fact: input.fact,
    ...(payment
      ? { tx_hash: payment.txHash, output_index: payment.outputIndex, amount_units: payment.amountUnits.toString(), confirmations: payment.confirmations }
      : {}),
    ...('transfers' in input ? { tx_hashes: input.transfers.map((t) => t.txHash) } : {}),
    live_units: total.toString(),
    ...extraDetails,
  };
  const transition: AppliedTransition = {
    fact: input.fact,
    row,
    from,
    to,
    ...(event
      ? {
          event: {
            ...event,
            data: {
              paid_units: total.toString(),
              remaining_units: (context.amountUnits > total ? context.amountUnits - total : 0n).toString(),
              ...(payment
                ? {
                    tx_hash: payment.txHash,
                    amount_units: payment.amountUnits.toString(),
                    confirmations: payment.confirmations,
                    block_height: payment.blockHeight === null ? null : Number(payment.blockHeight),
                    ...(payment.eventData ?? {}),
                  }
                : {}),
              ...('transfers' in input ? { tx_hashes: input.transfers.map((t) => t.txHash) } : {}),
              ...(input.fact === 'payment_confirmed' ? (input.eventData ?? {}) : {}),
            },
          },
        }
      : {}),
    details,
    transfers: state.transfers.map((t) => ({ ...t })),
  };
  if (to !== from || event) state.changed = true;
  state.status = to;
  state.applied.push(transition);
  return { row, transition };
}

/**
 * Takes the event off the `index`-th applied transition of the command (not yet written): the
 * transition stays (audited), the event is never sent, and its occurrence number is free again.
 */
export function withdrawEvent(state: InvoiceState, index: number): void {
  const applied = state.applied[index]!;
  if (!applied.event) return;
  const { event, ...rest } = applied;
  state.eventCounts[event.type] = (state.eventCounts[event.type] ?? 1) - 1;
  state.applied[index] = rest;
}

/**
 * The next event of `type` under its policy (undefined for a `once` event already sent). Its id is
 * derived from (invoice, event type, occurrence) and carries the time of the change, so the
 * delivery log stays in time order.
 */
function nextEvent(state: InvoiceState, type: InvoiceEventType, policy: 'once' | 'each', now: Date): { type: InvoiceEventType; id: string } | undefined {
  const sent = state.eventCounts[type] ?? 0;
  if (policy === 'once' && sent > 0) return undefined;
  state.eventCounts[type] = sent + 1;
  return { type, id: derivedIdAt(now, state.invoice.id, type, String(sent + 1)) };
}

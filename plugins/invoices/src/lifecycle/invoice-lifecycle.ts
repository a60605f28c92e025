import {
  type Actor,
  blockTimeSkewOf,
  type ChainId,
  dustFloorOf,
  type ChainRegistry,
  type CoinId,
  groupBy,
  sql,
  sqlQuery,
  usesPaymentReferences,
} from '@gw/kernel';
import type { Knex } from 'knex';
import { invoicesErrors } from '../errors.js';
import type { InvoiceStatus } from '../invoice-status.js';
import type { InvoiceView } from '../services/invoice-view.js';
import type { InvoicesConfig } from '../config.js';
import {
  applyFact,
  isFinal,
  liveTransfers,
  receiptOf,
  withdrawEvent,
  type ConfirmationFact,
  type FactInput,
  type InvoiceState,
  type ReceiptFields,
  type TransferKey,
} from './invoice-state.js';
import { candidateKeyOf, type LifecycleStore } from './lifecycle-store.js';
import { matchPayment, matchReferencedPayment, type MatchCandidate, type MatchDecision } from './payment-matching.js';
import { CANCELLABLE_STATUSES, EXPIRING_STATUSES, SETTLEABLE_STATUSES, WAITING_STATUSES } from './status-traits.js';

/** A receipt at a pool address, as a watcher (or the sandbox) reports it. */
export interface ObservedPayment extends ReceiptFields {
  readonly projectId: string;
  readonly chain: ChainId;
  readonly coin: CoinId;
  readonly address: string;
  /** Comment carried with the payment (TON), matched against `payment_token`; the sandbox sets it to pick its invoice. */
  readonly memo?: string | undefined;
  /**
   * Chains with payment references (issue 43): the references the transfer carries, matched against
   * `payment_reference`; the sandbox gives its invoice's to pick it.
   */
  readonly references?: readonly string[] | undefined;
  /** When this gateway first saw the receipt (its own clock: mempool sight, or the scan that found its block). */
  readonly firstSeenAt: Date;
  /** The timestamp of its block (null in the mempool); matching allows for the chain's clock skew. */
  readonly blockTime: Date | null;
  /** Written by the sandbox, not observed on a chain. */
  readonly synthetic?: boolean;
  /** Live transfers of the same invoice this one replaces (replace-by-fee; sandbox simulate-partial): dropped once it is counted. */
  readonly replaces?: readonly TransferKey[];
  /** Extra `data` of the events this receipt causes. */
  readonly eventData?: Readonly<Record<string, unknown>>;
  /**
   * The producer's sources have not yet attested it (the watchers' quorum, issue 40): its
   * confirmations count at most the invoice's threshold less one, so it cannot settle the invoice;
   * a later `confirm` brings the attested count.
   */
  readonly unattested?: boolean;
  /**
   * The invoice this receipt paid before it was reorganised away: mined again, it goes back to
   * that invoice without matching (a re-mined transfer is the same payment).
   */
  readonly invoiceId?: string;
}

/** What became of a receipt. */
export type PaymentOutcome =
  | { readonly kind: 'invoice' | 'late'; readonly invoiceId: string }
  | { readonly kind: 'ambiguous'; readonly invoiceIds: readonly string[] }
  | { readonly kind: 'orphan' }
  /** Below the coin's dust floor: recorded by the producer, never given to an invoice. */
  | { readonly kind: 'dust' };

/**
 * One scan pass of a watcher (issue 33, finding 11: at most one `invoice.partial` per invoice per
 * pass). Commands given it keep their working copies in `pending` instead of writing them, so the
 * commands of one step of the pass (one transaction: the block step's payments and confirmation
 * counts) change an invoice as one; `flush` writes them at the end of the step. `partialAnnounced`
 * spans the pass's steps (the block step, then the mempool step in a transaction of its own): an
 * invoice that sent its `invoice.partial` in an earlier step sends none in a later one. Created per
 * pass (`newPass`), on the instance running it; nothing of it outlives the pass.
 */
export interface PassMemory {
  readonly partialAnnounced: Set<string>;
  readonly pending: Map<string, InvoiceState>;
}

export function newPass(): PassMemory {
  return { partialAnnounced: new Set(), pending: new Map() };
}

/** A confirmation count of one transfer of one invoice. */
export interface ConfirmationUpdate extends ConfirmationFact {
  readonly invoiceId: string;
}

/** One transfer of one invoice. */
export interface InvoiceTransferKey extends TransferKey {
  readonly invoiceId: string;
}

/** A status change a command made (one per applied row that changed the status or sent an event). */
export interface TransitionRecord {
  readonly invoiceId: string;
  readonly from: InvoiceStatus | 'new';
  readonly to: InvoiceStatus;
  readonly eventType?: string;
  readonly eventId?: string;
}

/**
 * The only way an invoice's status changes after creation (architecture guide, "The invoice
 * lifecycle has one owner"). Each command takes facts, runs them through the transition table on
 * locked working copies, and writes a whole batch in a few statements in the caller's transaction.
 * Watchers, the sandbox, the expiry job, cancel (REST, MCP, CLI) and orphan attribution use these
 * commands and decide no status themselves.
 */
export class InvoiceLifecycle {
  constructor(private readonly deps: { db: Knex; chains: ChainRegistry; invoicesConfig: InvoicesConfig; invoicesLifecycleStore: LifecycleStore }) {}

  /**
   * The dust floor of a coin in base units (issue 33, finding 11): the configured override
   * (`plugins.invoices.dustFloorUnits`), else the chain definition's. A transfer below it never
   * changes an invoice.
   */
  dustFloor(chain: ChainId, coin: CoinId): bigint {
    const override = this.deps.invoicesConfig.dustFloorUnits?.[coin];
    return override !== undefined ? BigInt(override) : dustFloorOf(this.deps.chains.get(chain).definition, coin);
  }

  /**
   * The payment references of `chain`'s invoices of projects `projectIds` that a payment may still
   * come for (issue 43; the watchers look payments up by them): invoices waiting for money, and
   * those that ended less than `endedWithinSeconds` ago (a late payment is found, and heard, too).
   */
  async watchedReferences(chain: ChainId, projectIds: readonly string[], endedWithinSeconds: number): Promise<string[]> {
    if (projectIds.length === 0) return [];
    const rows = await sqlQuery<{ payment_reference: string }>(
      this.deps.db,
      sql`select payment_reference from invoices_invoices
           where chain = ${chain} and payment_reference is not null and project_id = any(${[...new Set(projectIds)]}::text[])
             and (status = any(${WAITING_STATUSES}::text[]) or updated_at > now() - make_interval(secs => ${endedWithinSeconds}::int))`,
    );
    return rows.map((r) => r.payment_reference);
  }

  /**
   * Matches each receipt to an invoice (see payment-matching.ts) and applies `payment_seen` (then
   * `payment_confirmed` for a receipt already in a block, and `payment_dropped` for what it
   * replaces). Receipts are handled in order; a later one sees what an earlier one changed.
   *
   * A receipt observed on a chain below its coin's dust floor is `dust`: no invoice hears of it
   * (no status, no event, not counted, not even towards an otherwise exactly paid invoice). The
   * sandbox's synthetic payments are the partner's own requests and are never dust. A further payment that leaves an invoice
   * short, or settles it short, announces `invoice.partial` once per command, with the totals after
   * the last one; with `pass`, nothing is written until the pass's `flush` (see {@link PassMemory}).
   */
  async observePayments(
    trx: Knex.Transaction,
    all: readonly ObservedPayment[],
    actor: Actor,
    pass?: PassMemory,
  ): Promise<{ outcomes: PaymentOutcome[]; transitions: TransitionRecord[] }> {
    if (all.length === 0) return { outcomes: [], transitions: [] };
    const isDust = all.map((p) => !p.synthetic && p.amountUnits < this.dustFloor(p.chain, p.coin));
    const payments = all.filter((_, i) => !isDust[i]);
    if (payments.length === 0) return { outcomes: all.map(() => ({ kind: 'dust' })), transitions: [] };
    const byChain = groupBy(payments, (p) => p.chain);
    const states = new Map<string, InvoiceState>();
    const byKey = new Map<string, InvoiceState[]>();
    // A working copy the pass holds already is the invoice as it stands (its row is not written yet).
    const held = (state: InvoiceState) => pass?.pending.get(state.invoice.id) ?? state;
    for (const [chain, list] of byChain) {
      const unknown = list.filter((p) => !p.invoiceId);
      const found = usesPaymentReferences(this.deps.chains.get(chain).definition)
        ? await this.deps.invoicesLifecycleStore.referenceCandidates(trx, chain, unknown)
        : await this.deps.invoicesLifecycleStore.candidates(trx, chain, unknown);
      for (const [id, state] of found.states) states.set(id, held(state));
      for (const [key, candidates] of found.byKey) byKey.set(key, candidates.map(held));
    }
    const known = payments.flatMap((p) => (p.invoiceId && !states.has(p.invoiceId) ? [p.invoiceId] : []));
    for (const [id, state] of await this.deps.invoicesLifecycleStore.load(trx, known)) states.set(id, held(state));
    const now = new Date();
    const outcomes: PaymentOutcome[] = [];
    const skewMs = new Map([...byChain.keys()].map((chain) => [chain, blockTimeSkewOf(this.deps.chains.get(chain).definition) * 1000]));
    const referenced = new Set([...byChain.keys()].filter((chain) => usesPaymentReferences(this.deps.chains.get(chain).definition)));
    for (const payment of payments) {
      const candidates = byKey.get(candidateKeyOf(payment)) ?? [];
      const match = referenced.has(payment.chain) ? matchReferencedPayment : matchPayment;
      const decision: MatchDecision = payment.invoiceId
        ? states.has(payment.invoiceId)
          ? { kind: states.get(payment.invoiceId)!.status === 'expired' ? 'late' : 'invoice', invoiceId: payment.invoiceId }
          : { kind: 'orphan' }
        : match(
            candidates.map((s): MatchCandidate => ({
              id: s.invoice.id,
              status: s.status,
              amountUnits: s.invoice.amount_units,
              paymentToken: s.invoice.payment_token,
              createdAt: s.invoice.created_at,
              paymentReference: s.invoice.payment_reference ?? null,
              matchingMode: s.invoice.matching_mode,
            })),
            {
              amountUnits: payment.amountUnits,
              memo: payment.memo,
              references: payment.references,
              firstSeenAt: payment.firstSeenAt,
              blockTime: payment.blockTime,
              blockTimeSkewMs: skewMs.get(payment.chain)!,
            },
          );
      if (decision.kind === 'ambiguous') {
        for (const id of decision.invoiceIds)
          applyFact(states.get(id)!, { fact: 'ambiguous_match' }, now, {
            tx_hash: payment.txHash,
            output_index: payment.outputIndex,
            amount_units: payment.amountUnits.toString(),
          });
      } else if (decision.kind !== 'orphan') {
        const state = states.get(decision.invoiceId)!;
        // Not attested yet: it may not settle the invoice (the confirmation counter reports the rest once it is).
        const counted = payment.unattested ? { ...payment, confirmations: Math.min(payment.confirmations, belowThreshold(state)) } : payment;
        const fact: FactInput = {
          fact: 'payment_seen',
          payment: {
            ...receiptOf(counted),
            synthetic: payment.synthetic ?? false,
            ...(payment.eventData ? { eventData: payment.eventData } : {}),
          },
        };
        applyFact(state, fact, now, decision.kind === 'late' ? { late: true } : {});
        if (counted.confirmations > 0) applyFact(state, { fact: 'payment_confirmed', updates: [counted] }, now);
        if (payment.replaces && payment.replaces.length > 0)
          applyFact(state, { fact: 'payment_dropped', transfers: payment.replaces }, now, { replaced_by: payment.txHash });
      }
      outcomes.push(
        decision.kind === 'ambiguous'
          ? { kind: 'ambiguous', invoiceIds: decision.invoiceIds }
          : decision.kind === 'orphan'
            ? { kind: 'orphan' }
            : { kind: decision.kind, invoiceId: decision.invoiceId },
      );
    }
    const transitions = collect(states.values());
    await this.write(trx, states, actor, pass);
    let next = 0;
    return { outcomes: isDust.map((dust) => (dust ? { kind: 'dust' as const } : outcomes[next++]!)), transitions };
  }

  /**
   * New confirmation counts of transfers (head moved). Per update: `settled` once the transfer no
   * longer needs counting (counted in a settled status, or its invoice takes no payments any more).
   * `eventData` goes into the data of any event a settlement sends (sandbox simulate-event).
   */
  async confirm(
    trx: Knex.Transaction,
    updates: readonly ConfirmationUpdate[],
    actor: Actor,
    eventData?: Readonly<Record<string, unknown>>,
    pass?: PassMemory,
  ): Promise<{ settled: boolean[]; transitions: TransitionRecord[] }> {
    if (updates.length === 0) return { settled: [], transitions: [] };
    const states = await this.applyPerInvoice(trx, updates, pass, (list) => ({
      fact: 'payment_confirmed',
      updates: list,
      ...(eventData ? { eventData } : {}),
    }));
    const transitions = collect(states.values());
    const settled = updates.map((u) => {
      const state = states.get(u.invoiceId);
      if (!state || !SETTLEABLE_STATUSES.includes(state.status)) return true;
      const transfer = state.transfers.find((t) => t.txHash === u.txHash && t.outputIndex === u.outputIndex);
      return !transfer || transfer.status !== 'pending';
    });
    await this.write(trx, states, actor, pass);
    return { settled, transitions };
  }

  /**
   * The confirmation threshold of each of the invoices that exist (issue 40: the watchers' quorum
   * holds a transfer below it until independent providers attest it). An invoice's threshold
   * counts at least one confirmation (see `isFinal`).
   */
  async confirmationThresholds(trx: Knex.Transaction, invoiceIds: readonly string[]): Promise<Map<string, number>> {
    if (invoiceIds.length === 0) return new Map();
    const rows = await sqlQuery<{ id: string; confirmation_threshold: number }>(
      trx,
      sql`select id, confirmation_threshold from invoices_invoices where id = any(${[...new Set(invoiceIds)]}::text[])`,
    );
    return new Map(rows.map((r) => [r.id, Math.max(Number(r.confirmation_threshold), 1)]));
  }

  /** Transfers that left the chain (`reorg`) or the mempool without a block (`dropped`). */
  async revertPayments(
    trx: Knex.Transaction,
    transfers: readonly InvoiceTransferKey[],
    reason: 'reorg' | 'dropped',
    actor: Actor,
    details: Record<string, unknown> = {},
    pass?: PassMemory,
  ): Promise<{ transitions: TransitionRecord[] }> {
    if (transfers.length === 0) return { transitions: [] };
    const states = await this.applyPerInvoice(
      trx,
      transfers,
      pass,
      (list) => ({ fact: reason === 'reorg' ? 'payment_reverted' : 'payment_dropped', transfers: list }),
      details,
    );
    const transitions = collect(states.values());
    await this.write(trx, states, actor, pass);
    return { transitions };
  }

  /**
   * Writes the working copies the pass's commands of this step hold (in `trx`, the step's
   * transaction). An invoice whose `invoice.partial` went out in an earlier step of the pass sends
   * none now; the invoice still changes (status, transfers, audit).
   */
  async flush(trx: Knex.Transaction, pass: PassMemory, actor: Actor): Promise<void> {
    for (const state of pass.pending.values()) {
      const partial = state.applied.findIndex((a) => a.event?.type === 'invoice.partial');
      if (partial < 0) continue;
      if (pass.partialAnnounced.has(state.invoice.id)) withdrawEvent(state, partial);
      else pass.partialAnnounced.add(state.invoice.id);
    }
    const states = [...pass.pending.values()];
    pass.pending.clear();
    await this.deps.invoicesLifecycleStore.persist(trx, states, actor);
  }

  /** Writes the command's working copies now, or (with a pass) leaves them to the pass's `flush`. */
  private async write(trx: Knex.Transaction, states: Map<string, InvoiceState>, actor: Actor, pass: PassMemory | undefined): Promise<void> {
    if (!pass) return this.deps.invoicesLifecycleStore.persist(trx, states.values(), actor);
    for (const [id, state] of states) pass.pending.set(id, state);
  }

  /** The invoices locked and loaded, the pass's working copies where it holds them. */
  /** Holds the invoices `items` name and applies to each the fact made of its own items (in their order), at one instant. */
  private async applyPerInvoice<T extends { readonly invoiceId: string }>(
    trx: Knex.Transaction,
    items: readonly T[],
    pass: PassMemory | undefined,
    fact: (list: T[]) => FactInput,
    details?: Record<string, unknown>,
  ): Promise<Map<string, InvoiceState>> {
    const states = await this.loadHeld(
      trx,
      items.map((i) => i.invoiceId),
      pass,
    );
    const now = new Date();
    for (const [invoiceId, list] of groupBy(items, (i) => i.invoiceId)) {
      const state = states.get(invoiceId);
      if (state) applyFact(state, fact(list), now, details);
    }
    return states;
  }

  private async loadHeld(trx: Knex.Transaction, invoiceIds: readonly string[], pass: PassMemory | undefined): Promise<Map<string, InvoiceState>> {
    const states = await this.deps.invoicesLifecycleStore.load(trx, invoiceIds);
    if (pass) for (const [id, state] of states) states.set(id, pass.pending.get(id) ?? state);
    return states;
  }

  /**
   * Expires up to `limit` invoices whose deadline passed by the database's clock (or `asOf`, for
   * tests that move time), oldest deadline first; rows another instance holds are skipped and
   * taken by its pass. Returns how many expired.
   */
  async expireDue(actor: Actor, options: { limit?: number; asOf?: Date } = {}): Promise<number> {
    return this.deps.db.transaction(async (trx) => {
      const due = await sqlQuery<{ id: string }>(
        trx,
        sql`select id from invoices_invoices
             where status = any(${EXPIRING_STATUSES}::text[]) and expires_at <= coalesce(${options.asOf?.toISOString() ?? null}::timestamptz, now())
             order by expires_at limit ${options.limit ?? 500} for update skip locked`,
      );
      const { transitions } = await this.apply(
        trx,
        due.map((d) => d.id),
        () => [{ fact: 'deadline_passed' }],
        actor,
      );
      return transitions.filter((t) => t.to === 'expired').length;
    });
  }

  /**
   * Cancels a pending or detected invoice of the project (spec 3.1): its address goes into
   * cooldown. 404 `invoice_not_found`; 409 `invoice_not_cancellable` for any other status.
   */
  async cancel(projectId: string, invoiceId: string, actor: Actor): Promise<InvoiceView> {
    return this.deps.db.transaction(async (trx) => {
      const state = await this.lockOwn(trx, projectId, invoiceId);
      const { row } = applyFact(state, { fact: 'cancel_requested' }, new Date());
      if (!row) {
        throw invoicesErrors.invoice_not_cancellable({
          message: `The invoice is ${state.status}; only ${CANCELLABLE_STATUSES.join(' or ')} invoices can be cancelled.`,
          details: { status: state.status },
        });
      }
      await this.deps.invoicesLifecycleStore.persist(trx, [state], actor);
      return this.deps.invoicesLifecycleStore.view(state);
    });
  }

  /**
   * Runs facts built from the current state of each invoice (`build` sees the locked working copy)
   * in `trx`; the sandbox and the expiry job use it. A fact the table refuses changes nothing.
   */
  async apply(
    trx: Knex.Transaction,
    invoiceIds: readonly string[],
    build: (state: InvoiceState) => readonly FactInput[],
    actor: Actor,
  ): Promise<{ transitions: TransitionRecord[]; states: Map<string, InvoiceState> }> {
    const states = await this.deps.invoicesLifecycleStore.load(trx, invoiceIds);
    const now = new Date();
    for (const state of states.values()) for (const fact of build(state)) applyFact(state, fact, now);
    const transitions = collect(states.values());
    await this.deps.invoicesLifecycleStore.persist(trx, states.values(), actor);
    return { transitions, states };
  }

  /** The invoice of the project, locked in `trx`, as the lifecycle sees it; 404 `invoice_not_found` otherwise. */
  async lockOwn(trx: Knex.Transaction, projectId: string, invoiceId: string): Promise<InvoiceState> {
    const state = (await this.deps.invoicesLifecycleStore.load(trx, [invoiceId])).get(invoiceId);
    if (!state || state.invoice.project_id !== projectId) throw invoicesErrors.invoice_not_found();
    return state;
  }

  /** The view of a working copy. */
  view(state: InvoiceState): InvoiceView {
    return this.deps.invoicesLifecycleStore.view(state);
  }
}

/** Whether a transfer of a working copy still waits to be counted (live, not counted). */
export function isUncounted(state: InvoiceState, key: TransferKey): boolean {
  const transfer = state.transfers.find((t) => t.txHash === key.txHash && t.outputIndex === key.outputIndex);
  return transfer?.status === 'pending';
}

export { isFinal, liveTransfers };

/** The most confirmations an unattested transfer of the invoice counts: one short of its threshold. */
function belowThreshold(state: InvoiceState): number {
  return Math.max(state.invoice.confirmation_threshold, 1) - 1;
}

function collect(states: Iterable<InvoiceState>): TransitionRecord[] {
  const records: TransitionRecord[] = [];
  for (const state of states) {
    for (const a of state.applied) {
      if (a.from === a.to && !a.event) continue;
      records.push({ invoiceId: state.invoice.id, from: a.from, to: a.to, ...(a.event ? { eventType: a.event.type, eventId: a.event.id } : {}) });
    }
  }
  return records;
}

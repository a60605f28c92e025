import type { InvoiceLifecycle, InvoiceState, ObservedPayment, TransferKey, TransferState, TransitionRecord } from '@gw/plugin-invoices/contract';
import type { Actor } from '@gw/kernel';
import type { Knex } from 'knex';
import { sandboxErrors } from '../errors.js';

/**
 * The sandbox's chain: payments, confirmations, reorganisations and drops of an invoice's
 * transfers, reported to the invoice lifecycle exactly as a chain watcher reports real ones (the
 * same matcher, the same counting, the same table). Payments carry the invoice's payment token as
 * their memo (and, on a chain with payment references, its reference), so they reach the invoice a
 * simulation names even at a shared address; confirmation
 * counts are the sandbox's to give, as it has no blocks. Every method runs in the caller's
 * transaction and returns the transitions it caused.
 */
export class SandboxChain {
  constructor(private readonly deps: { invoicesLifecycle: InvoiceLifecycle }) {}

  /**
   * A payment of `amountUnits` to the invoice's address with `confirmations` (0: mempool). It must
   * reach this invoice (422 `sandbox_invoice_transition_invalid` otherwise). `replaces`: unconfirmed
   * payments of the invoice it replaces (replace-by-fee).
   */
  async pay(
    trx: Knex.Transaction,
    state: InvoiceState,
    payment: {
      amountUnits: bigint;
      txHash: string;
      confirmations?: number;
      blockHeight?: bigint;
      replaces?: readonly TransferKey[];
      eventData?: Record<string, unknown>;
    },
    actor: Actor,
  ): Promise<TransitionRecord[]> {
    const { invoice } = state;
    const confirmations = payment.confirmations ?? 0;
    const observed: ObservedPayment = {
      projectId: invoice.project_id,
      chain: invoice.chain,
      coin: invoice.coin,
      address: invoice.address,
      txHash: payment.txHash,
      outputIndex: 0,
      amountUnits: payment.amountUnits,
      confirmations,
      blockHeight: confirmations > 0 ? (payment.blockHeight ?? null) : null,
      blockHash: null,
      memo: invoice.payment_token,
      // One recipient for every invoice of the project (issue 43): the reference names this one.
      ...(invoice.payment_reference ? { references: [invoice.payment_reference] } : {}),
      firstSeenAt: new Date(),
      blockTime: null,
      synthetic: true,
      ...(payment.replaces && payment.replaces.length > 0 ? { replaces: payment.replaces } : {}),
      ...(payment.eventData ? { eventData: payment.eventData } : {}),
    };
    const { outcomes, transitions } = await this.deps.invoicesLifecycle.observePayments(trx, [observed], actor);
    const outcome = outcomes[0]!;
    if (!('invoiceId' in outcome) || outcome.invoiceId !== invoice.id) {
      throw sandboxErrors.sandbox_invoice_transition_invalid({
        message: `The simulated payment did not reach this invoice (the matcher made it ${outcome.kind}).`,
        details: { outcome: outcome.kind },
      });
    }
    return transitions;
  }

  /**
   * New confirmation counts for the invoice's unconfirmed live payments: `count(transfer)` each
   * (`eventData` goes into the event a settlement sends).
   */
  async confirm(
    trx: Knex.Transaction,
    state: InvoiceState,
    count: (transfer: TransferState) => number,
    actor: Actor,
    eventData?: Record<string, unknown>,
  ): Promise<TransitionRecord[]> {
    const updates = state.transfers.flatMap((t) => {
      const confirmations = t.status === 'pending' ? count(t) : t.confirmations;
      return confirmations === t.confirmations ? [] : [{ invoiceId: state.invoice.id, txHash: t.txHash, outputIndex: t.outputIndex, confirmations }];
    });
    return (await this.deps.invoicesLifecycle.confirm(trx, updates, actor, eventData)).transitions;
  }

  /** Transfers of the invoice leave the chain (a reorganisation). */
  async reorg(trx: Knex.Transaction, state: InvoiceState, transfers: readonly TransferKey[], actor: Actor): Promise<TransitionRecord[]> {
    return this.revert(trx, state, transfers, 'reorg', actor);
  }

  /** Unconfirmed payments of the invoice leave the mempool without a block. */
  async drop(trx: Knex.Transaction, state: InvoiceState, transfers: readonly TransferKey[], actor: Actor): Promise<TransitionRecord[]> {
    return this.revert(trx, state, transfers, 'dropped', actor);
  }

  private async revert(
    trx: Knex.Transaction,
    state: InvoiceState,
    transfers: readonly TransferKey[],
    reason: 'reorg' | 'dropped',
    actor: Actor,
  ): Promise<TransitionRecord[]> {
    if (transfers.length === 0) return [];
    const keys = transfers.map((t) => ({ ...t, invoiceId: state.invoice.id }));
    return (await this.deps.invoicesLifecycle.revertPayments(trx, keys, reason, actor)).transitions;
  }

  /** The invoice's deadline passes. */
  async deadline(trx: Knex.Transaction, state: InvoiceState, actor: Actor): Promise<TransitionRecord[]> {
    return (await this.deps.invoicesLifecycle.apply(trx, [state.invoice.id], () => [{ fact: 'deadline_passed' }], actor)).transitions;
  }
}

/** The invoice's live payments not yet counted (unconfirmed). */
export function unconfirmedPayments(state: InvoiceState): TransferKey[] {
  return state.transfers.filter((t) => t.status === 'pending').map((t) => ({ txHash: t.txHash, outputIndex: t.outputIndex }));
}

/** The invoice's payments counted in its settled status. */
export function countedPayments(state: InvoiceState): TransferKey[] {
  return state.transfers.filter((t) => t.status === 'confirmed').map((t) => ({ txHash: t.txHash, outputIndex: t.outputIndex }));
}

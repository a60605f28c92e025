import { randomBytes } from 'node:crypto';
import type { Actor, Cradle } from '@gw/kernel';
import type { Knex } from 'knex';
import { liveTransfers, liveUnits, type InvoiceState } from './lifecycle/invoice-state.js';
import type { TransitionRecord } from './lifecycle/invoice-lifecycle.js';

/**
 * Test helpers for other plugins: drive an invoice through the real lifecycle commands with the
 * facts a watcher would report (payments at its address through the matcher, confirmations,
 * drops, the deadline), so tests get real events without a chain. Each returns the id of the last
 * event the invoice sent (undefined when it sent none).
 */

const TEST_ACTOR: Actor = { actor: 'test-chain', channel: 'system' };

async function inTransaction<T>(cradle: Cradle, trx: Knex.Transaction | undefined, work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
  return trx ? work(trx) : cradle.db.transaction(work);
}

function lastEvent(records: readonly TransitionRecord[], invoiceId: string): string | undefined {
  return records.filter((r) => r.invoiceId === invoiceId && r.eventId).at(-1)?.eventId;
}

async function locked(cradle: Cradle, trx: Knex.Transaction, projectId: string, invoiceId: string): Promise<InvoiceState> {
  return cradle.invoicesLifecycle.lockOwn(trx, projectId, invoiceId);
}

/**
 * A payment at the invoice's address (its payment token as memo, and on a chain with payment
 * references its reference, so it reaches this invoice):
 * `amountUnits` defaults to what is still due (the whole amount for a pending invoice).
 */
export async function payInvoice(
  cradle: Cradle,
  projectId: string,
  invoiceId: string,
  options: { amountUnits?: bigint; confirmations?: number; txHash?: string } = {},
  trx?: Knex.Transaction,
): Promise<string | undefined> {
  return inTransaction(cradle, trx, async (tx) => {
    const state = await locked(cradle, tx, projectId, invoiceId);
    const due = state.invoice.amount_units - liveUnits(state);
    const confirmations = options.confirmations ?? 0;
    const { transitions } = await cradle.invoicesLifecycle.observePayments(
      tx,
      [
        {
          projectId,
          chain: state.invoice.chain,
          coin: state.invoice.coin,
          address: state.invoice.address,
          txHash: options.txHash ?? `0x${randomBytes(32).toString('hex')}`,
          outputIndex: 0,
          amountUnits: options.amountUnits ?? (due > 0n ? due : 1n),
          confirmations,
          blockHeight: confirmations > 0 ? 1n : null,
          blockHash: null,
          memo: state.invoice.payment_token,
          ...(state.invoice.payment_reference ? { references: [state.invoice.payment_reference] } : {}),
          firstSeenAt: new Date(),
          blockTime: null,
        },
      ],
      TEST_ACTOR,
    );
    return lastEvent(transitions, invoiceId);
  });
}

/** Every unconfirmed payment of the invoice confirmed to its threshold: the invoice settles. */
export async function confirmInvoice(cradle: Cradle, projectId: string, invoiceId: string, trx?: Knex.Transaction): Promise<string | undefined> {
  return inTransaction(cradle, trx, async (tx) => {
    const state = await locked(cradle, tx, projectId, invoiceId);
    const count = Math.max(state.invoice.confirmation_threshold, 1);
    const updates = liveTransfers(state)
      .filter((t) => t.status === 'pending')
      .map((t) => ({ invoiceId, txHash: t.txHash, outputIndex: t.outputIndex, confirmations: count }));
    return lastEvent((await cradle.invoicesLifecycle.confirm(tx, updates, TEST_ACTOR)).transitions, invoiceId);
  });
}

/** The invoice's unconfirmed payments never make it into a block and its deadline passes: expired. */
export async function expireInvoice(cradle: Cradle, projectId: string, invoiceId: string, trx?: Knex.Transaction): Promise<string | undefined> {
  return inTransaction(cradle, trx, async (tx) => {
    await locked(cradle, tx, projectId, invoiceId);
    const { transitions } = await cradle.invoicesLifecycle.apply(
      tx,
      [invoiceId],
      (state) => [{ fact: 'payment_dropped', transfers: liveTransfers(state).filter((t) => t.status === 'pending') }, { fact: 'deadline_passed' }],
      TEST_ACTOR,
    );
    return lastEvent(transitions, invoiceId);
  });
}

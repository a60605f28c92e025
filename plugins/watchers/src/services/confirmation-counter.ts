import type { InvoiceService, InvoiceTransitions, InvoiceView, TransactionUpdate } from '@gw/plugin-invoices';
import { derivedId } from '@gw/kernel';
import type { Knex } from 'knex';
import { WATCHER_ACTOR } from './payment-matcher.js';

/** Statuses whose in-block payments are counted towards a final status. */
const COUNTING = ['pending', 'detected', 'partial', 'reverted', 'expired'] as const;

interface CountedTransfer {
  id: string;
  invoice_id: string;
  project_id: string;
  tx_hash: string;
  output_index: number;
  block_height: string;
  block_hash: string;
}

/** Final status of an invoice whose counted transfers add up to `paid` (decisions.md, "Watchers"). */
export function finalStatus(invoice: Pick<InvoiceView, 'status' | 'matching_mode' | 'amount_crypto_units'>, paid: bigint): 'paid' | 'overpaid' | 'partial' | 'expired_paid_late' {
  if (invoice.status === 'expired') return 'expired_paid_late';
  const amount = BigInt(invoice.amount_crypto_units);
  if (invoice.matching_mode === 'any') return 'paid';
  if (paid < amount) return 'partial';
  if (paid > amount && invoice.matching_mode === 'exact') return 'overpaid';
  return 'paid';
}

/**
 * Confirmation counting after each scan: every in-block transfer of the network that belongs to an
 * invoice and is not yet final gets `head - height + 1` confirmations. An invoice whose pending
 * transfers all reach its `confirmation_threshold` takes its final status for the sum of its
 * non-reverted transfers, with that event (`invoice.paid`, `.overpaid`, `.partial`,
 * `.expired_paid_late`); otherwise only the counts are written (and a `pending` invoice, whose
 * payment came back in a block after a reorg, is `detected` again). Transfers of an invoice that
 * no longer takes payments (cancelled) are marked final without any change.
 */
export class ConfirmationCounter {
  constructor(private readonly deps: { invoicesService: InvoiceService; invoicesTransitions: InvoiceTransitions }) {}

  async count(trx: Knex.Transaction, chain: string, network: string, head: number): Promise<{ finalized: number }> {
    const rows = (
      await trx.raw<{ rows: CountedTransfer[] }>(
        `select id, invoice_id, project_id, tx_hash, output_index, block_height, block_hash from watchers_transfers
          where chain = ? and network = ? and invoice_id is not null and status = 'in_block' and final_at is null
          order by block_height`,
        [chain, network],
      )
    ).rows;
    const byInvoice = new Map<string, CountedTransfer[]>();
    for (const row of rows) byInvoice.set(row.invoice_id, [...(byInvoice.get(row.invoice_id) ?? []), row]);
    const invoices = await this.deps.invoicesService.getMany([...byInvoice.keys()], trx);
    let finalized = 0;
    for (const [invoiceId, transfers] of byInvoice) {
      const invoice = invoices.get(invoiceId)!;
      if (!(COUNTING as readonly string[]).includes(invoice.status)) {
        // Cancelled since (or otherwise closed): its payments settle nothing; stop counting them.
        await trx('watchers_transfers').whereIn('id', transfers.map((t) => t.id)).update({ final_at: trx.fn.now(), updated_at: trx.fn.now() });
        continue;
      }
      const confirmations = (t: CountedTransfer) => Math.max(0, head - Number(t.block_height) + 1);
      const final = transfers.every((t) => confirmations(t) >= invoice.confirmation_threshold);
      const updates: TransactionUpdate[] = transfers.map((t) => ({
        txHash: t.tx_hash,
        outputIndex: t.output_index,
        status: final ? 'confirmed' : 'pending',
        confirmations: confirmations(t),
        blockHeight: BigInt(t.block_height),
        blockHash: t.block_hash,
      }));
      if (final) {
        const counted = new Set(transfers.map((t) => `${t.tx_hash}:${t.output_index}`));
        const paid = invoice.transactions
          .filter((tx) => tx.status === 'confirmed' || counted.has(`${tx.tx_hash}:${tx.output_index}`))
          .reduce((sum, tx) => sum + BigInt(tx.amount_units), 0n);
        const to = finalStatus(invoice, paid);
        await this.deps.invoicesTransitions.apply(
          {
            projectId: invoice.project_id,
            invoiceId,
            from: [invoice.status],
            to,
            event: `invoice.${to}` as const,
            eventData: { paid_units: paid.toString() },
            transactionUpdates: updates,
            actor: WATCHER_ACTOR,
            details: { confirmations: Math.min(...updates.map((u) => u.confirmations)), paid_units: paid.toString() },
          },
          trx,
        );
        await trx('watchers_transfers').whereIn('id', transfers.map((t) => t.id)).update({ final_at: trx.fn.now(), updated_at: trx.fn.now() });
        finalized++;
      } else if (invoice.status === 'pending') {
        // Its payment was reorganised away (back to pending) and is in a block again, re-mined
        // under the same hash: detected once more (the derived event id keeps it one event).
        await this.deps.invoicesTransitions.apply(
          { projectId: invoice.project_id, invoiceId, from: ['pending'], to: 'detected', event: 'invoice.detected', eventId: derivedId(invoiceId, 'detected'), transactionUpdates: updates, actor: WATCHER_ACTOR, details: { confirmations: Math.min(...updates.map((u) => u.confirmations)), re_mined: true } },
          trx,
        );
      } else if (invoice.transactions.some((tx) => updates.some((u) => u.txHash === tx.tx_hash && u.outputIndex === tx.output_index && (u.confirmations !== tx.confirmations || tx.status === 'reverted')))) {
        await this.deps.invoicesTransitions.apply(
          { projectId: invoice.project_id, invoiceId, from: [invoice.status], to: invoice.status, transactionUpdates: updates, actor: WATCHER_ACTOR, details: { confirmations: Math.min(...updates.map((u) => u.confirmations)) } },
          trx,
        );
      }
    }
    return { finalized };
  }
}

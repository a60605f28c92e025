import type { InvoiceService, InvoiceTransitions } from '@gw/plugin-invoices';
import type { Knex } from 'knex';
import { WATCHER_ACTOR } from './payment-matcher.js';

/**
 * Undoes what blocks above `ancestor` contributed after a reorganisation: their transfers become
 * `reverted`; an invoice that had counted one of them (paid, overpaid, partial, expired_paid_late)
 * becomes `reverted` with `invoice.reverted` (a not yet counted one only leaves its transaction
 * reverted); a `detected` invoice left with no transfer in a block goes
 * back to `pending` (no event: the detection was never final). The stored block hashes above the
 * ancestor are dropped, so the scanner reads the new branch. A transfer of the new branch that is
 * the same (tx, output) is found again by its unique key and counted once more (back to `paid`
 * with a fresh `invoice.paid` when it re-confirms).
 */
export class ReorgRewinder {
  constructor(private readonly deps: { invoicesService: InvoiceService; invoicesTransitions: InvoiceTransitions }) {}

  async rewind(trx: Knex.Transaction, chain: string, network: string, ancestor: number): Promise<{ reverted: number; invoices: number }> {
    const transfers = (
      await trx.raw<{ rows: { id: string; invoice_id: string | null; project_id: string; tx_hash: string; output_index: number; counted: boolean }[] }>(
        // The CTE reads the rows as they were, so `counted` is whether each transfer had been final.
        `with gone as (
           select id, final_at is not null as counted from watchers_transfers
            where chain = ? and network = ? and status = 'in_block' and block_height > ?
            for update
         )
         update watchers_transfers w set status = 'reverted', final_at = null, updated_at = now()
           from gone where w.id = gone.id
         returning w.id, w.invoice_id, w.project_id, w.tx_hash, w.output_index, gone.counted`,
        [chain, network, ancestor],
      )
    ).rows;
    await trx('watchers_blocks').where({ chain, network }).andWhere('height', '>', ancestor).delete();
    const byInvoice = new Map<string, typeof transfers>();
    for (const t of transfers) if (t.invoice_id) byInvoice.set(t.invoice_id, [...(byInvoice.get(t.invoice_id) ?? []), t]);
    const invoices = await this.deps.invoicesService.getMany([...byInvoice.keys()], trx);
    for (const [invoiceId, reverted] of byInvoice) {
      const invoice = invoices.get(invoiceId)!;
      const gone = new Set(reverted.map((t) => `${t.tx_hash}:${t.output_index}`));
      const remaining = invoice.transactions.filter((tx) => tx.status !== 'reverted' && !gone.has(`${tx.tx_hash}:${tx.output_index}`));
      const lostCounted = reverted.some((t) => t.counted);
      const to =
        lostCounted && ['paid', 'overpaid', 'partial', 'expired_paid_late'].includes(invoice.status)
          ? 'reverted'
          : invoice.status === 'detected' && remaining.length === 0
            ? 'pending'
            : invoice.status;
      await this.deps.invoicesTransitions.apply(
        {
          projectId: invoice.project_id,
          invoiceId,
          from: [invoice.status],
          to,
          ...(to === 'reverted' ? { event: 'invoice.reverted' as const, eventData: { tx_hashes: reverted.map((t) => t.tx_hash) } } : {}),
          transactionUpdates: reverted.map((t) => ({ txHash: t.tx_hash, outputIndex: t.output_index, status: 'reverted' as const, confirmations: 0 })),
          actor: WATCHER_ACTOR,
          details: { reorg_ancestor: ancestor, tx_hashes: reverted.map((t) => t.tx_hash) },
        },
        trx,
      );
    }
    return { reverted: transfers.length, invoices: byInvoice.size };
  }
}

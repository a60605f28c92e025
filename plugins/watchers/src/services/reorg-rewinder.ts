import type { InvoiceService, InvoiceTransitions } from '@gw/plugin-invoices';
import type { Knex } from 'knex';
import { WATCHER_ACTOR } from './payment-matcher.js';

/**
 * Undoes what blocks above `ancestor` contributed after a reorganisation: their transfers become
 * `reverted`; an invoice that had counted one (paid, overpaid, partial, expired_paid_late) becomes
 * `reverted` with `invoice.reverted`; a `detected` invoice left with no transfer in a block goes
 * back to `pending` (no event: the detection was never final). The stored block hashes above the
 * ancestor are dropped, so the scanner reads the new branch. A transfer of the new branch that is
 * the same (tx, output) is found again by its unique key and counted once more (back to `paid`
 * with a fresh `invoice.paid` when it re-confirms).
 */
export class ReorgRewinder {
  constructor(private readonly deps: { invoicesService: InvoiceService; invoicesTransitions: InvoiceTransitions }) {}

  async rewind(trx: Knex.Transaction, chain: string, network: string, ancestor: number): Promise<{ reverted: number; invoices: number }> {
    const transfers = (
      await trx.raw<{ rows: { id: string; invoice_id: string | null; project_id: string; tx_hash: string; output_index: number }[] }>(
        `update watchers_transfers set status = 'reverted', final_at = null, updated_at = now()
          where chain = ? and network = ? and status = 'in_block' and block_height > ?
          returning id, invoice_id, project_id, tx_hash, output_index`,
        [chain, network, ancestor],
      )
    ).rows;
    await trx('watchers_blocks').where({ chain, network }).andWhere('height', '>', ancestor).delete();
    const byInvoice = new Map<string, typeof transfers>();
    for (const t of transfers) if (t.invoice_id) byInvoice.set(t.invoice_id, [...(byInvoice.get(t.invoice_id) ?? []), t]);
    for (const [invoiceId, reverted] of byInvoice) {
      const invoice = await this.deps.invoicesService.get(reverted[0]!.project_id, invoiceId, trx);
      const gone = new Set(reverted.map((t) => `${t.tx_hash}:${t.output_index}`));
      const remaining = invoice.transactions.filter((tx) => tx.status !== 'reverted' && !gone.has(`${tx.tx_hash}:${tx.output_index}`));
      const to = ['paid', 'overpaid', 'partial', 'expired_paid_late'].includes(invoice.status) ? 'reverted' : invoice.status === 'detected' && remaining.length === 0 ? 'pending' : invoice.status;
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

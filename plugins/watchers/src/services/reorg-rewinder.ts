import { sql, sqlQuery } from '@gw/kernel';
import type { InvoiceLifecycle } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import { WATCHER_ACTOR } from './payment-matcher.js';
import { invoiceTransferKeys } from './invoice-transfer-keys.js';

/**
 * Undoes what blocks above `ancestor` contributed after a reorganisation: their transfers become
 * `reverted` and are reported to the invoice lifecycle as `payment_reverted` (which decides what
 * that means for each invoice: `reverted` with `invoice.reverted` when it had counted one, back to
 * `pending` for a detection with nothing left, nothing otherwise). The stored block hashes above the
 * ancestor are dropped, so the scanner reads the new branch; a transfer of the new branch with the
 * same (tx, output) is stored again and reported as seen once more. Outputs spent in the undone
 * blocks are unspent again (`spent_by`, `spent_height` cleared); the new branch's blocks mark
 * their own spends. An undone transfer loses its attestation (issue 40: the providers attested it
 * in a block that is gone; mined again, it is attested again in its new block), and a disagreement
 * still open about it closes `resolved` (nothing is left to decide).
 */
export class ReorgRewinder {
  constructor(private readonly deps: { invoicesLifecycle: InvoiceLifecycle }) {}

  async rewind(trx: Knex.Transaction, chain: string, network: string, ancestor: number): Promise<{ reverted: number; invoices: number }> {
    const gone = await sqlQuery<{ id: string; invoice_id: string | null; tx_hash: string; output_index: number }>(
      trx,
      sql`update watchers_transfers
             set status = 'reverted', final_at = null, confirmations = 0, attestation = null, attested_at = null, attested_by = null,
                 attestation_asked_at = null, updated_at = now()
           where chain = ${chain} and network = ${network} and status = 'in_block' and block_height > ${ancestor}
       returning id, invoice_id, tx_hash, output_index`,
    );
    if (gone.length > 0) {
      const reason = `a reorganisation took the transfer off the chain (common ancestor ${ancestor})`;
      await sqlQuery(
        trx,
        sql`update watchers_disagreements set status = 'resolved', closed_at = now(), reason = ${reason}
             where transfer_id = any(${gone.map((t) => t.id)}::text[]) and status = 'open'`,
      );
    }
    // Spent by a transaction of an undone block: unspent again until the new branch spends it.
    await sqlQuery(
      trx,
      sql`update watchers_transfers set spent_by = null, spent_height = null, updated_at = now()
           where chain = ${chain} and network = ${network} and spent_height > ${ancestor}`,
    );
    await sqlQuery(trx, sql`delete from watchers_blocks where chain = ${chain} and network = ${network} and height > ${ancestor}`);
    const counted = invoiceTransferKeys(gone);
    await this.deps.invoicesLifecycle.revertPayments(trx, counted, 'reorg', WATCHER_ACTOR, { reorg_ancestor: ancestor });
    return { reverted: gone.length, invoices: new Set(counted.map((t) => t.invoiceId)).size };
  }
}

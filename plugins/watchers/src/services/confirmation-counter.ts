import { sql, sqlQuery } from '@gw/kernel';
import type { InvoiceLifecycle, PassMemory } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import { WATCHER_ACTOR } from './payment-matcher.js';

/**
 * Confirmation counting after each scan: every in-block transfer of the network that belongs to an
 * invoice and still counts towards something gets `head - height + 1` confirmations, reported to
 * the invoice lifecycle (which alone decides whether the invoice settles, and how). Only transfers
 * whose count moved are reported, in one lifecycle call; a transfer the lifecycle no longer needs
 * counted (settled with its invoice, or its invoice closed) is marked final and left alone.
 *
 * On a network whose quorum is above 1 (issue 40), a transfer the providers have not attested
 * (`attested_at` null; see `QuorumVerifier`) counts at most its invoice's threshold less one, so its
 * invoice cannot settle on the scanning provider's word; its count is reported in full at the
 * first count after its attestation. `confirmations` is the count last reported.
 */
export class ConfirmationCounter {
  constructor(private readonly deps: { invoicesLifecycle: InvoiceLifecycle }) {}

  /** With `pass`, the invoice changes wait for the pass's flush (see `PassMemory`); `quorum` is the network's. */
  async count(
    trx: Knex.Transaction,
    chain: string,
    network: string,
    head: number,
    pass?: PassMemory,
    quorum = 1,
  ): Promise<{ reported: number; settled: number }> {
    const candidates = await sqlQuery<{
      id: string;
      invoice_id: string;
      tx_hash: string;
      output_index: number;
      block_height: string;
      block_hash: string;
      confirmations: number;
      reported: number;
      attested: boolean;
    }>(
      trx,
      sql`select id, invoice_id, tx_hash, output_index, block_height, block_hash, greatest(0, ${head}::bigint - block_height + 1)::int as confirmations,
                 confirmations as reported, attested_at is not null as attested
            from watchers_transfers
           where chain = ${chain} and network = ${network} and invoice_id is not null and status = 'in_block' and final_at is null
             and confirmations <> greatest(0, ${head}::bigint - block_height + 1)`,
    );
    const moved = quorum > 1 ? await this.heldBelowThreshold(trx, candidates) : candidates;
    if (moved.length === 0) return { reported: 0, settled: 0 };
    const { settled } = await this.deps.invoicesLifecycle.confirm(
      trx,
      moved.map((t) => ({
        invoiceId: t.invoice_id,
        txHash: t.tx_hash,
        outputIndex: t.output_index,
        confirmations: t.confirmations,
        blockHeight: BigInt(t.block_height),
        blockHash: t.block_hash,
      })),
      WATCHER_ACTOR,
      undefined,
      pass,
    );
    await sqlQuery(
      trx,
      sql`update watchers_transfers w set confirmations = m.confirmations, final_at = case when m.settled then now() else null end, updated_at = now()
            from unnest(${moved.map((t) => t.id)}::text[], ${moved.map((t) => t.confirmations)}::int[], ${settled}::boolean[]) as m(id, confirmations, settled)
           where w.id = m.id`,
    );
    return { reported: moved.length, settled: settled.filter(Boolean).length };
  }

  /** The candidates with unattested counts capped one short of their invoice's threshold, less those whose capped count was reported already. */
  private async heldBelowThreshold<T extends { invoice_id: string; confirmations: number; reported: number; attested: boolean }>(
    trx: Knex.Transaction,
    candidates: readonly T[],
  ): Promise<T[]> {
    const unattested = candidates.filter((t) => !t.attested);
    if (unattested.length === 0) return [...candidates];
    const thresholds = await this.deps.invoicesLifecycle.confirmationThresholds(
      trx,
      unattested.map((t) => t.invoice_id),
    );
    return candidates.flatMap((t) => {
      if (t.attested) return [t];
      const capped = Math.min(t.confirmations, (thresholds.get(t.invoice_id) ?? 1) - 1);
      return capped === t.reported ? [] : [{ ...t, confirmations: capped }];
    });
  }
}

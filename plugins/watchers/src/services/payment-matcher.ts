import { newId, sql, sqlQuery, type ObservedTransfer } from '@gw/kernel';
import type { InvoiceLifecycle, PaymentOutcome } from '@gw/plugin-invoices';
import type { Actor } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import type { WatchedAddress } from './watched-addresses.js';

/** The actor of every change the watchers make (audit channel `system`). */
export const WATCHER_ACTOR: Actor = { actor: 'watchers', channel: 'system' };

/** What became of an observed transfer (`known`: stored before, nothing new to report). */
export type MatchOutcome = 'invoice' | 'late' | 'orphan' | 'ambiguous' | 'known';

/** A transfer to record and the pool address it pays. */
export interface MatchItem {
  readonly transfer: ObservedTransfer;
  readonly at: WatchedAddress;
}

interface Stored {
  readonly id: string;
  /** New, or seen again after it had been reorganised away: reported to the lifecycle. */
  readonly fresh: boolean;
  /** When this gateway first recorded the transfer (the database's clock): its first sight. */
  readonly firstSeenAt: Date;
  /** The invoice a revived transfer paid before it was reorganised away. */
  readonly invoiceId: string | null;
}

/**
 * Records observed transfers (decisions.md, "Watchers") and reports the new ones to the invoice
 * lifecycle, which matches each to an invoice and decides every status:
 * - a transfer is stored once per (chain, network, tx, output): a rescan, a second provider, the
 *   mempool then a block never report it twice; a block only updates its row, and its count is the
 *   confirmation counter's business;
 * - a transfer that was reorganised away and appears in a block again is reported again (its
 *   first sight stays the original one);
 * - the lifecycle's outcome (invoice, late, ambiguous, orphan) is written on the row: orphans and
 *   ambiguous receipts make the orphan inbox.
 * A whole block is one store statement, one lifecycle call and one marking statement.
 */
export class PaymentMatcher {
  constructor(private readonly deps: { invoicesLifecycle: InvoiceLifecycle }) {}

  /** Records `items` (one block's transfers, or the mempool's) seen at `head`; returns each item's outcome. */
  async recordMany(trx: Knex.Transaction, items: readonly MatchItem[], head: number): Promise<MatchOutcome[]> {
    if (items.length === 0) return [];
    const stored = await this.store(trx, items, head);
    const fresh = items.flatMap((item, i) => (stored[i]!.fresh ? [{ item, row: stored[i]! }] : []));
    const { outcomes } = await this.deps.invoicesLifecycle.observePayments(
      trx,
      fresh.map(({ item, row }) => ({
        projectId: item.at.projectId,
        chain: item.transfer.chain,
        coin: item.transfer.coin,
        address: item.transfer.toAddress,
        txHash: item.transfer.txHash,
        outputIndex: item.transfer.outputIndex,
        amountUnits: item.transfer.amountUnits,
        confirmations: confirmationsAt(item.transfer, head),
        blockHeight: item.transfer.blockHeight === null ? null : BigInt(item.transfer.blockHeight),
        blockHash: item.transfer.blockHash,
        memo: item.transfer.memo,
        firstSeenAt: row.firstSeenAt,
        blockTime: item.transfer.blockHeight === null ? null : item.transfer.observedAt,
        ...(row.invoiceId ? { invoiceId: row.invoiceId } : {}),
      })),
      WATCHER_ACTOR,
    );
    await this.mark(
      trx,
      fresh.map(({ row }, i) => ({ id: row.id, outcome: outcomes[i]! })),
    );
    let next = 0;
    return stored.map((row) => (row.fresh ? kindOf(outcomes[next++]!) : 'known'));
  }

  /**
   * Inserts every transfer (a stored one only gets its block updated); per item its row, whether it
   * is fresh, and its first sight: when this gateway first recorded it, never the block's own
   * timestamp (chains' clocks drift; a reorganised test chain's run behind).
   */
  private async store(trx: Knex.Transaction, all: readonly MatchItem[], head: number): Promise<Stored[]> {
    const outputKey = (item: MatchItem) => `${item.transfer.txHash}:${item.transfer.outputIndex}`;
    // One statement cannot touch a row twice: an output repeated in the batch is stored once.
    const items = [...new Map(all.map((item) => [outputKey(item), item])).values()];
    const column = <T>(pick: (item: MatchItem) => T) => items.map(pick);
    // `prior` reads the rows as they were, so a row that was `reverted` and is in a block again is fresh.
    const rows = await sqlQuery<{ id: string; tx_hash: string; output_index: number; inserted: boolean; revived: boolean; created_at: Date; prior_invoice_id: string | null }>(
      trx,
      sql`with t as (
            select * from unnest(${column(() => newId())}::text[], ${column((i) => i.transfer.chain)}::text[], ${column((i) => i.transfer.network)}::text[],
                                 ${column((i) => i.transfer.coin)}::text[], ${column((i) => i.transfer.txHash)}::text[], ${column((i) => i.transfer.outputIndex)}::int[],
                                 ${column((i) => i.transfer.toAddress)}::text[], ${column((i) => i.transfer.fromAddress ?? null)}::text[],
                                 ${column((i) => i.transfer.amountUnits.toString())}::numeric[], ${column((i) => i.transfer.blockHeight)}::bigint[],
                                 ${column((i) => i.transfer.blockHash)}::text[], ${column((i) => i.transfer.memo ?? null)}::text[],
                                 ${column((i) => (i.transfer.blockHeight === null ? 'mempool' : 'in_block'))}::text[], ${column((i) => i.at.projectId)}::text[],
                                 ${column((i) => i.at.id)}::text[], ${column((i) => i.transfer.observedAt.toISOString())}::timestamptz[],
                                 ${column((i) => confirmationsAt(i.transfer, head))}::int[])
              with ordinality as t(id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                                   memo, status, project_id, pool_address_id, received_at, confirmations, ord)
          ),
          prior as (
            select w.chain, w.network, w.tx_hash, w.output_index, w.status, w.invoice_id from watchers_transfers w
              join t on (w.chain, w.network, w.tx_hash, w.output_index) = (t.chain, t.network, t.tx_hash, t.output_index)
          ),
          upserted as (
            insert into watchers_transfers (id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                                            memo, status, project_id, pool_address_id, match, received_at, confirmations)
            select id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                   memo, status, project_id, pool_address_id, 'orphan', received_at, case when status = 'in_block' then confirmations else 0 end
              from t order by ord
            on conflict (chain, network, tx_hash, output_index) do update
               set block_height = coalesce(excluded.block_height, watchers_transfers.block_height),
                   block_hash = coalesce(excluded.block_hash, watchers_transfers.block_hash),
                   status = case when excluded.status = 'in_block' then 'in_block' else watchers_transfers.status end,
                   updated_at = now()
            returning id, chain, network, tx_hash, output_index, created_at, (xmax = 0) as inserted
          )
          select u.id, u.tx_hash, u.output_index, u.created_at, u.inserted,
                 coalesce(p.status = 'reverted', false) as revived, p.invoice_id as prior_invoice_id
            from upserted u left join prior p on (p.chain, p.network, p.tx_hash, p.output_index) = (u.chain, u.network, u.tx_hash, u.output_index)`,
    );
    const byOutput = new Map(rows.map((row) => [`${row.tx_hash}:${row.output_index}`, row]));
    const revivedIn = new Set(items.filter((i) => i.transfer.blockHeight !== null).map(outputKey));
    return all.map((item) => {
      const key = outputKey(item);
      const row = byOutput.get(key)!;
      // A repeated output counts once: only its first occurrence is fresh. A reverted row is
      // fresh again only when it is back in a block (the mempool does not bring it back).
      const revived = row.revived && revivedIn.has(key);
      const fresh = row.inserted || revived;
      row.inserted = false;
      row.revived = false;
      return { id: row.id, fresh, firstSeenAt: new Date(row.created_at), invoiceId: revived ? row.prior_invoice_id : null };
    });
  }

  private async mark(trx: Knex.Transaction, marks: readonly { id: string; outcome: PaymentOutcome }[]): Promise<void> {
    if (marks.length === 0) return;
    await sqlQuery(
      trx,
      sql`update watchers_transfers w set invoice_id = m.invoice_id, match = m.match, updated_at = now()
            from unnest(${marks.map((m) => m.id)}::text[], ${marks.map((m) => ('invoiceId' in m.outcome ? m.outcome.invoiceId : null))}::text[],
                        ${marks.map((m) => kindOf(m.outcome))}::text[]) as m(id, invoice_id, match)
           where w.id = m.id`,
    );
  }
}

function kindOf(outcome: PaymentOutcome): Exclude<MatchOutcome, 'known'> {
  return outcome.kind;
}

/** Confirmations of a transfer at `head`: 0 in the mempool, else `head - height + 1`. */
export function confirmationsAt(transfer: Pick<ObservedTransfer, 'blockHeight'>, head: number): number {
  return transfer.blockHeight === null ? 0 : Math.max(0, head - transfer.blockHeight + 1);
}

import { type Actor, jsonRecords, newId, type ObservedTransfer, sql, sqlQuery } from '@gw/kernel';
import type { InvoiceLifecycle, PassMemory, PaymentOutcome } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { WatchedAddress } from './watched-addresses.js';

/** The actor of every change the watchers make (audit channel `system`). */
export const WATCHER_ACTOR: Actor = { actor: 'watchers', channel: 'system' };

/**
 * What became of an observed transfer (`known`: stored before, nothing new to report; `dust`:
 * below the coin's dust floor, recorded and never given to an invoice nor to the orphan inbox).
 */
export type MatchOutcome = 'invoice' | 'late' | 'orphan' | 'ambiguous' | 'dust' | 'known';

/** A transfer to record and the pool address it pays. */
export interface MatchItem {
  readonly transfer: ObservedTransfer;
  readonly at: WatchedAddress;
}

/**
 * Records observed transfers (decisions.md, "Watchers") and reports the new ones to the invoice
 * lifecycle, which matches each to an invoice and decides every status:
 * - a transfer is stored once per (chain, network, tx, output): a rescan, a second provider, the
 *   mempool then a block never report it twice; a block only updates its row, and its count is the
 *   confirmation counter's business;
 * - a transfer that was reorganised away and appears in a block again is reported again (its
 *   first sight stays the original one);
 * - the lifecycle's outcome (invoice, late, ambiguous, orphan, dust) is written on the row: orphans and
 *   ambiguous receipts make the orphan inbox; dust stays on record only (the money is on the
 *   address all the same).
 * A whole pass's blocks are one read, one lifecycle call and one write (an insert of the new transfers, an
 * update of the stored ones that changed).
 */
export class PaymentMatcher {
  constructor(private readonly deps: { invoicesLifecycle: InvoiceLifecycle }) {}

  /**
   * Records `items` (a pass's blocks' transfers in block order, or the mempool's) seen at `head`;
   * returns each item's outcome. `pass` carries what the scan pass announced already.
   *
   * `quorum` is the network's (issue 40). Above 1, an in-block transfer is reported to the
   * lifecycle as not yet attested (it counts one confirmation short of its invoice's threshold until
   * the quorum verifier attests it; its stored count is 0, so the pass's count reports what holds),
   * and the events it causes say how many providers saw it and how many must agree
   * (`sources: { detected_by: 1, required_for_paid: quorum }`).
   */
  async recordMany(trx: Knex.Transaction, items: readonly MatchItem[], head: number, pass?: PassMemory, quorum = 1): Promise<MatchOutcome[]> {
    if (items.length === 0) return [];
    const seen = await this.prior(trx, items);
    const fresh = items.flatMap((item, i) => (seen[i]!.fresh ? [{ item, row: seen[i]! }] : []));
    const held = quorum > 1;
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
        references: item.transfer.references,
        firstSeenAt: row.firstSeenAt,
        blockTime: item.transfer.blockHeight === null ? null : item.transfer.observedAt,
        ...(row.invoiceId ? { invoiceId: row.invoiceId } : {}),
        ...(held ? { unattested: item.transfer.blockHeight !== null, eventData: { sources: { detected_by: 1, required_for_paid: quorum } } } : {}),
      })),
      WATCHER_ACTOR,
      pass,
    );
    await this.write(
      trx,
      items.map((item, i) => ({ item, row: seen[i]! })),
      new Map(fresh.map(({ row }, i) => [row, outcomes[i]!])),
      head,
      held,
    );
    let next = 0;
    return seen.map((row) => (row.fresh ? kindOf(outcomes[next++]!) : 'known'));
  }

  /**
   * What is stored of each item already (one read; the network's scan lock keeps it true until
   * the write: every writer of `watchers_transfers` holds it, the block pass, the mempool pass and
   * the stale-mempool drop, and attribution only updates a stored row; a new writer must take it
   * too, or its insert meets this one's unique key): whether it is fresh, and its first sight: when this gateway first recorded it (the
   * transaction's start for a new one, as its row will say), never the block's own timestamp
   * (chains' clocks drift; a reorganised test chain's run behind).
   */
  private async prior(trx: Knex.Transaction, items: readonly MatchItem[]): Promise<Seen[]> {
    const rows = await sqlQuery<{
      ord: string;
      id: string | null;
      status: string | null;
      invoice_id: string | null;
      created_at: Date | null;
      rejected: boolean | null;
      now: Date;
    }>(
      trx,
      sql`select k.ord, w.id, w.status, w.invoice_id, w.created_at, w.rejected_at is not null as rejected, now() as now
            from unnest(${items.map((i) => i.transfer.chain)}::text[], ${items.map((i) => i.transfer.network)}::text[],
                        ${items.map((i) => i.transfer.txHash)}::text[], ${items.map((i) => i.transfer.outputIndex)}::int[])
                 with ordinality as k(chain, network, tx_hash, output_index, ord)
            left join watchers_transfers w on (w.chain, w.network, w.tx_hash, w.output_index) = (k.chain, k.network, k.tx_hash, k.output_index)
           order by k.ord`,
    );
    const firstOfOutput = new Set<string>();
    return items.map((item, i) => {
      const row = rows[i]!;
      const key = `${item.transfer.chain}:${item.transfer.network}:${item.transfer.txHash}:${item.transfer.outputIndex}`;
      // An output repeated in the batch counts once: only its first occurrence may be fresh.
      const first = !firstOfOutput.has(key);
      firstOfOutput.add(key);
      if (row.id === null) return { id: newId(), stored: false, fresh: first, firstSeenAt: new Date(row.now), invoiceId: null, first };
      // The operator rejected it over a disagreement between providers (issue 40): it stays as it is, whoever reports it again.
      if (row.rejected) return { id: row.id, stored: true, fresh: false, firstSeenAt: new Date(row.created_at!), invoiceId: null, first: false };
      // A reverted row is fresh again only when it is back in a block (the mempool does not bring it back).
      const revived = first && row.status === 'reverted' && item.transfer.blockHeight !== null;
      return { id: row.id, stored: true, fresh: revived, firstSeenAt: new Date(row.created_at!), invoiceId: revived ? row.invoice_id : null, first };
    });
  }

  /**
   * One write per kind of row: new transfers are inserted with their outcome; stored ones get
   * their block (a mempool transfer mined, a reorganised one mined again) and, when they were
   * fresh again, their new outcome.
   */
  private async write(
    trx: Knex.Transaction,
    all: readonly { item: MatchItem; row: Seen }[],
    outcomes: ReadonlyMap<Seen, PaymentOutcome>,
    head: number,
    held: boolean,
  ): Promise<void> {
    const record = ({ item, row }: { item: MatchItem; row: Seen }) => {
      const outcome = outcomes.get(row);
      const t = item.transfer;
      const invoiceId = outcome && 'invoiceId' in outcome ? outcome.invoiceId : null;
      return {
        id: row.id,
        chain: t.chain,
        network: t.network,
        coin: t.coin,
        tx_hash: t.txHash,
        output_index: t.outputIndex,
        to_address: t.toAddress,
        from_address: t.fromAddress ?? null,
        amount_units: t.amountUnits.toString(),
        block_height: t.blockHeight,
        block_hash: t.blockHash,
        memo: t.memo ?? null,
        status: t.blockHeight === null ? 'mempool' : 'in_block',
        project_id: item.at.projectId,
        pool_address_id: item.at.id,
        invoice_id: invoiceId,
        match: outcome ? kindOf(outcome) : null,
        received_at: t.observedAt.toISOString(),
        // Held below its threshold until attested: the lifecycle has the capped count, which the pass's count reports.
        confirmations: t.blockHeight === null || (held && invoiceId !== null) ? 0 : confirmationsAt(t, head),
      };
    };
    const inserts = all.filter(({ row }) => !row.stored && row.first).map(record);
    if (inserts.length > 0) {
      await sqlQuery(
        trx,
        sql`insert into watchers_transfers (id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                                            memo, status, project_id, pool_address_id, invoice_id, match, received_at, confirmations)
            select id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                   memo, status, project_id, pool_address_id, invoice_id, match, received_at, confirmations
              from ${jsonRecords(inserts)} as t(id text, chain text, network text, coin text, tx_hash text, output_index int, to_address text, from_address text,
                                                amount_units numeric, block_height bigint, block_hash text, memo text, status text, project_id text,
                                                pool_address_id text, invoice_id text, match text, received_at timestamptz, confirmations int)`,
      );
    }
    const updates = all.filter(({ item, row }) => row.stored && row.first && (row.fresh || item.transfer.blockHeight !== null)).map(record);
    if (updates.length > 0) {
      await sqlQuery(
        trx,
        sql`update watchers_transfers w
               set block_height = coalesce(u.block_height, w.block_height), block_hash = coalesce(u.block_hash, w.block_hash),
                   status = case when u.status = 'in_block' then 'in_block' else w.status end,
                   invoice_id = case when u.match is null then w.invoice_id else u.invoice_id end, match = coalesce(u.match, w.match),
                   updated_at = now()
              from ${jsonRecords(updates)} as u(id text, block_height bigint, block_hash text, status text, invoice_id text, match text)
             where w.id = u.id`,
      );
    }
  }
}

/** An item as stored before this batch (`stored`), and whether the lifecycle hears of it (`fresh`). */
interface Seen {
  readonly id: string;
  readonly stored: boolean;
  readonly fresh: boolean;
  readonly firstSeenAt: Date;
  /** The invoice a revived transfer paid before it was reorganised away. */
  readonly invoiceId: string | null;
  /** The first occurrence of its output in the batch (later ones are written and reported once). */
  readonly first: boolean;
}

function kindOf(outcome: PaymentOutcome): Exclude<MatchOutcome, 'known'> {
  return outcome.kind;
}

/** Confirmations of a transfer at `head`: 0 in the mempool, else `head - height + 1`. */
export function confirmationsAt(transfer: Pick<ObservedTransfer, 'blockHeight'>, head: number): number {
  return transfer.blockHeight === null ? 0 : Math.max(0, head - transfer.blockHeight + 1);
}

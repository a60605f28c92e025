import { derivedId, newId, type ObservedTransfer } from '@gw/kernel';
import { paymentCandidateKey, type InvoiceService, type InvoiceTransitions, type InvoiceView } from '@gw/plugin-invoices';
import type { Actor } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import type { WatchedAddress } from './watched-addresses.js';

/** The actor of every change the watchers make (audit channel `system`). */
export const WATCHER_ACTOR: Actor = { actor: 'watchers', channel: 'system' };

/** What became of an observed transfer. */
export type MatchOutcome = 'invoice' | 'late' | 'orphan' | 'ambiguous' | 'known';

/** A transfer to record and the pool address it pays. */
export interface MatchItem {
  readonly transfer: ObservedTransfer;
  readonly at: WatchedAddress;
}

interface Mark {
  readonly id: string;
  readonly invoiceId: string | null;
  readonly match: MatchOutcome;
}

/** Statuses in which an invoice takes a new payment at its address. */
const TAKING = ['pending', 'detected', 'partial', 'reverted'] as const;

/**
 * Records observed transfers and attributes each new one (decisions.md, "Watchers"):
 * 1. A transfer already stored (a rescan, the mempool then a block, a re-mined transaction after a
 *    reorg) only has its block updated: it never counts twice (unique chain, network, tx, output).
 * 2. Among the project's invoices at the address for that coin that take payments (pending,
 *    detected, partial, reverted): a memo equal to one invoice's `payment_token` picks it; else a
 *    single one takes it; else (a shared, overlay address) the one whose amount equals the
 *    transfer exactly; several equal ones become `ambiguous` and the transfer waits in the orphan
 *    inbox; none is an orphan.
 * 3. No invoice takes payments but the newest there expired: a late payment, counted when it
 *    confirms (`expired_paid_late`).
 * 4. Otherwise an orphan payment.
 * A pending invoice that takes a transfer becomes `detected` with `invoice.detected`.
 */
export class PaymentMatcher {
  constructor(private readonly deps: { invoicesService: InvoiceService; invoicesTransitions: InvoiceTransitions }) {}

  /**
   * Records `items` (the transfers of one block, or of the mempool, each with the pool address it
   * pays) and attributes every new one, in order. Statements are shared across the batch: one
   * insert of all transfers, one candidate lookup for all addresses, one update of all match
   * results; only the invoice transitions run per transfer. `head` gives a transfer in a block
   * its confirmations at detection. Returns each item's outcome.
   */
  async recordMany(trx: Knex.Transaction, items: readonly MatchItem[], head: number): Promise<MatchOutcome[]> {
    if (items.length === 0) return [];
    const chain = items[0]!.transfer.chain;
    const stored = await this.store(trx, items);
    const fresh = items.filter((_, i) => stored[i]!.inserted);
    const concerns = (item: MatchItem) => ({ projectId: item.at.projectId, address: item.transfer.toAddress, coin: item.transfer.coin });
    const candidates = await this.deps.invoicesService.paymentCandidatesMany(trx, chain, fresh.map(concerns));
    const touched = new Set<string>();
    const marks: Mark[] = [];
    const outcomes: MatchOutcome[] = [];
    for (const [i, item] of items.entries()) {
      if (!stored[i]!.inserted) {
        outcomes.push('known');
        continue;
      }
      const key = paymentCandidateKey(concerns(item));
      // A second transfer to the same address in this batch sees what the first one changed.
      const atAddress = touched.has(key) ? await this.deps.invoicesService.paymentCandidates(trx, { ...concerns(item), chain }) : (candidates.get(key) ?? []);
      const [outcome, invoiceId] = await this.attribute(trx, item.transfer, atAddress, head);
      if (outcome !== 'orphan') {
        touched.add(key);
        marks.push({ id: stored[i]!.id, invoiceId, match: outcome });
      }
      outcomes.push(outcome);
    }
    await this.mark(trx, marks);
    return outcomes;
  }

  /** Inserts every transfer (a stored one only gets its block updated); per item its row id and whether it is new. */
  private async store(trx: Knex.Transaction, all: readonly MatchItem[]): Promise<{ id: string; inserted: boolean }[]> {
    const outputKey = (item: MatchItem) => `${item.transfer.txHash}:${item.transfer.outputIndex}`;
    // One statement cannot touch a row twice: an output repeated in the batch is stored once.
    const items = [...new Map(all.map((item) => [outputKey(item), item])).values()];
    const column = <T>(pick: (item: MatchItem) => T) => items.map(pick);
    const result = await trx.raw<{ rows: { id: string; tx_hash: string; output_index: number; inserted: boolean }[] }>(
      `insert into watchers_transfers (id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                                       memo, status, project_id, pool_address_id, match, received_at)
       select id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units::numeric, block_height, block_hash,
              memo, status, project_id, pool_address_id, 'orphan', received_at
         from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[],
                     ?::text[], ?::text[], ?::text[], ?::text[], ?::timestamptz[])
           with ordinality as t(id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                                memo, status, project_id, pool_address_id, received_at, ord)
        order by ord
       on conflict (chain, network, tx_hash, output_index) do update
          set block_height = coalesce(excluded.block_height, watchers_transfers.block_height),
              block_hash = coalesce(excluded.block_hash, watchers_transfers.block_hash),
              status = case when excluded.status = 'in_block' then 'in_block' else watchers_transfers.status end,
              updated_at = now()
       returning id, tx_hash, output_index, (xmax = 0) as inserted`,
      [
        column(() => newId()),
        column((i) => i.transfer.chain),
        column((i) => i.transfer.network),
        column((i) => i.transfer.coin),
        column((i) => i.transfer.txHash),
        column((i) => i.transfer.outputIndex),
        column((i) => i.transfer.toAddress),
        column((i) => i.transfer.fromAddress ?? null),
        column((i) => i.transfer.amountUnits.toString()),
        column((i) => i.transfer.blockHeight),
        column((i) => i.transfer.blockHash),
        column((i) => i.transfer.memo ?? null),
        column((i) => (i.transfer.blockHeight === null ? 'mempool' : 'in_block')),
        column((i) => i.at.projectId),
        column((i) => i.at.id),
        column((i) => i.transfer.observedAt),
      ] as unknown as readonly Knex.RawBinding[],
    );
    const byOutput = new Map(result.rows.map((row) => [`${row.tx_hash}:${row.output_index}`, row]));
    return all.map((item) => {
      const row = byOutput.get(outputKey(item))!;
      // A repeated output counts once: only its first occurrence is new.
      const inserted = row.inserted;
      row.inserted = false;
      return { id: row.id, inserted };
    });
  }

  /** Applies the matching rules to one new transfer given the candidate invoices at its address. */
  private async attribute(trx: Knex.Transaction, transfer: ObservedTransfer, candidates: readonly InvoiceView[], head: number): Promise<[MatchOutcome, string | null]> {
    const taking = candidates.filter((i) => (TAKING as readonly string[]).includes(i.status));
    const memo = transfer.memo?.trim().toLowerCase();
    const byToken = memo ? taking.filter((i) => i.payment_token === memo) : [];
    let target: InvoiceView | undefined;
    if (byToken.length === 1) target = byToken[0];
    else if (taking.length === 1) target = taking[0];
    else if (taking.length > 1) {
      const exact = taking.filter((i) => i.status === 'pending' && BigInt(i.amount_crypto_units) === transfer.amountUnits);
      if (exact.length === 1) target = exact[0];
      else if (exact.length > 1) {
        for (const invoice of exact) {
          await this.deps.invoicesTransitions.apply(
            { projectId: invoice.project_id, invoiceId: invoice.id, from: ['pending'], to: 'ambiguous', actor: WATCHER_ACTOR, details: { tx_hash: transfer.txHash, output_index: transfer.outputIndex, reason: 'several invoices at a shared address match the amount' } },
            trx,
          );
        }
        return ['ambiguous', null];
      }
    }
    if (target) {
      await this.deps.invoicesTransitions.apply(
        {
          projectId: target.project_id,
          invoiceId: target.id,
          from: [target.status],
          to: target.status === 'pending' ? 'detected' : target.status,
          ...(target.status === 'pending' ? { event: 'invoice.detected' as const, eventId: derivedId(target.id, 'detected') } : {}),
          eventData: { tx_hash: transfer.txHash, amount_units: transfer.amountUnits.toString() },
          transaction: this.transaction(transfer, head),
          actor: WATCHER_ACTOR,
          details: { tx_hash: transfer.txHash, output_index: transfer.outputIndex, block_height: transfer.blockHeight },
        },
        trx,
      );
      return ['invoice', target.id];
    }
    const expired = candidates.find((i) => i.status === 'expired');
    if (expired && taking.length === 0) {
      await this.deps.invoicesTransitions.apply(
        { projectId: expired.project_id, invoiceId: expired.id, from: ['expired'], to: 'expired', transaction: this.transaction(transfer, head), actor: WATCHER_ACTOR, details: { tx_hash: transfer.txHash, late: true } },
        trx,
      );
      return ['late', expired.id];
    }
    return ['orphan', null];
  }

  private transaction(transfer: ObservedTransfer, head: number) {
    return {
      txHash: transfer.txHash,
      outputIndex: transfer.outputIndex,
      amountUnits: transfer.amountUnits,
      confirmations: transfer.blockHeight === null ? 0 : Math.max(0, head - transfer.blockHeight + 1),
      blockHeight: transfer.blockHeight === null ? null : BigInt(transfer.blockHeight),
      blockHash: transfer.blockHash,
      status: 'pending' as const,
      synthetic: false,
    };
  }

  private async mark(trx: Knex.Transaction, marks: readonly Mark[]): Promise<void> {
    if (marks.length === 0) return;
    await trx.raw(
      `update watchers_transfers w set invoice_id = m.invoice_id, match = m.match, updated_at = now()
         from unnest(?::text[], ?::text[], ?::text[]) as m(id, invoice_id, match) where w.id = m.id`,
      [marks.map((m) => m.id), marks.map((m) => m.invoiceId), marks.map((m) => m.match)] as unknown as readonly Knex.RawBinding[],
    );
  }
}

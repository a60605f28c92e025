import { derivedId, newId, type ObservedTransfer } from '@gw/kernel';
import type { InvoiceService, InvoiceTransitions, InvoiceView } from '@gw/plugin-invoices';
import type { Actor } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import type { WatchedAddress } from './watched-addresses.js';

/** The actor of every change the watchers make (audit channel `system`). */
export const WATCHER_ACTOR: Actor = { actor: 'watchers', channel: 'system' };

/** What became of an observed transfer. */
export type MatchOutcome = 'invoice' | 'late' | 'orphan' | 'ambiguous' | 'known';

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

  async record(trx: Knex.Transaction, transfer: ObservedTransfer, at: WatchedAddress): Promise<MatchOutcome> {
    const status = transfer.blockHeight === null ? 'mempool' : 'in_block';
    const stored = await trx.raw<{ rows: { id: string; inserted: boolean }[] }>(
      `insert into watchers_transfers (id, chain, network, coin, tx_hash, output_index, to_address, from_address, amount_units, block_height, block_hash,
                                       memo, status, project_id, pool_address_id, match, received_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?::numeric, ?, ?, ?, ?, ?, ?, 'orphan', ?)
       on conflict (chain, network, tx_hash, output_index) do update
          set block_height = coalesce(excluded.block_height, watchers_transfers.block_height),
              block_hash = coalesce(excluded.block_hash, watchers_transfers.block_hash),
              status = case when excluded.status = 'in_block' then 'in_block' else watchers_transfers.status end,
              updated_at = now()
       returning id, (xmax = 0) as inserted`,
      [
        newId(),
        transfer.chain,
        transfer.network,
        transfer.coin,
        transfer.txHash,
        transfer.outputIndex,
        transfer.toAddress,
        transfer.fromAddress ?? null,
        transfer.amountUnits.toString(),
        transfer.blockHeight,
        transfer.blockHash,
        transfer.memo ?? null,
        status,
        at.projectId,
        at.id,
        transfer.observedAt,
      ],
    );
    const row = stored.rows[0]!;
    if (!row.inserted) return 'known';

    const candidates = await this.deps.invoicesService.paymentCandidates(trx, { projectId: at.projectId, chain: transfer.chain, address: transfer.toAddress, coin: transfer.coin });
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
        await this.mark(trx, row.id, null, 'ambiguous');
        return 'ambiguous';
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
          transaction: this.transaction(transfer),
          actor: WATCHER_ACTOR,
          details: { tx_hash: transfer.txHash, output_index: transfer.outputIndex, block_height: transfer.blockHeight },
        },
        trx,
      );
      await this.mark(trx, row.id, target.id, 'invoice');
      return 'invoice';
    }
    const expired = candidates.find((i) => i.status === 'expired');
    if (expired && taking.length === 0) {
      await this.deps.invoicesTransitions.apply(
        { projectId: expired.project_id, invoiceId: expired.id, from: ['expired'], to: 'expired', transaction: this.transaction(transfer), actor: WATCHER_ACTOR, details: { tx_hash: transfer.txHash, late: true } },
        trx,
      );
      await this.mark(trx, row.id, expired.id, 'late');
      return 'late';
    }
    return 'orphan';
  }

  private transaction(transfer: ObservedTransfer) {
    return {
      txHash: transfer.txHash,
      outputIndex: transfer.outputIndex,
      amountUnits: transfer.amountUnits,
      confirmations: 0,
      blockHeight: transfer.blockHeight === null ? null : BigInt(transfer.blockHeight),
      blockHash: transfer.blockHash,
      status: 'pending' as const,
      synthetic: false,
    };
  }

  private async mark(trx: Knex.Transaction, transferId: string, invoiceId: string | null, match: MatchOutcome): Promise<void> {
    await trx('watchers_transfers').where({ id: transferId }).update({ invoice_id: invoiceId, match, updated_at: trx.fn.now() });
  }
}

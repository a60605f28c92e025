import type { PayoutRecipientOutcome, PlanObserver, PlanStatusChange } from '@gw/plugin-treasury/contract';
import type { Knex } from 'knex';
import { Item } from '../models/item.js';
import type { ItemStore } from './item-store.js';

/**
 * Follows `payout` plans (TREASURY_PLAN_OBSERVERS), in the transaction of each plan status change:
 * broadcast → items `sent` (a reorg's return from confirmed: back to `sent`, silently); confirmed →
 * `completed` (account plans: each recipient by its own outcome); failed → `failed` (an account
 * plan's recipient whose own transfer confirmed: `completed`; still pending: stays `sent`, and the
 * treasury repeats `failed` once it confirms or fails); cancelled → back to `approved` without a
 * plan; invalidated → `batched` back to `approved`, `sent` to `failed`; both unless `replacedBy` names the plan that still pays them (a cancelled
 * or invalidated RBF bump whose original may confirm): then they follow that plan; replaced → the
 * replacing plan.
 */
export function payoutPlanObserver(store: () => ItemStore): PlanObserver {
  return {
    kinds: ['payout'],
    async onStatus(trx: Knex.Transaction, change: PlanStatusChange): Promise<void> {
      const items = await Item.query(trx).where('plan_id', change.planId).orderBy('id').forUpdate();
      if (items.length === 0) return;
      const outcomes = new Map<string, PayoutRecipientOutcome>((change.recipients ?? []).map((r) => [r.reference, r]));
      const s = store();
      for (const item of items) {
        const outcome = outcomes.get(item.id);
        const txid = outcome?.txid ?? item.txid;
        if (change.replacedBy && change.status !== 'replaced') {
          // Never back to `approved` while another plan may still pay the item: that would pay it twice.
          await Item.query(trx).patch({ plan_id: change.replacedBy, updated_at: new Date() }).where('id', item.id);
          continue;
        }
        switch (change.status) {
          case 'broadcast':
            if (item.status === 'completed' && change.previousStatus === 'confirmed') await s.move(trx, item, 'sent', {}, false);
            else if (item.status === 'batched') await s.move(trx, item, 'sent', { txid });
            break;
          case 'confirmed': {
            let current = item;
            if (current.status === 'batched') current = await s.move(trx, current, 'sent', { txid });
            if (current.status !== 'sent') break;
            if (outcome?.outcome === 'failed') await s.move(trx, current, 'failed', { failure_reason: outcome.reason ?? 'the transaction failed' });
            else if (outcome === undefined || outcome.outcome === 'confirmed') await s.move(trx, current, 'completed', { txid });
            break;
          }
          case 'failed': {
            let current = item;
            if (outcome?.outcome === 'confirmed') {
              if (current.status === 'batched') current = await s.move(trx, current, 'sent', { txid });
              if (current.status === 'sent') await s.move(trx, current, 'completed', { txid });
            } else if (outcome?.outcome === 'pending' && txid) {
              // Its own transfer is still out there (an account plan failed at a later step): it stays
              // `sent` until the treasury tells this plan again once that transfer confirms or fails.
              if (current.status === 'batched') await s.move(trx, current, 'sent', { txid });
            } else if (current.status === 'batched' || current.status === 'sent')
              await s.move(trx, current, 'failed', { failure_reason: outcome?.reason ?? change.reason ?? 'the plan failed' });
            break;
          }
          case 'cancelled':
            if (item.status === 'batched') await s.move(trx, item, 'approved', { plan_id: null, fee_units: null }, false);
            break;
          case 'invalidated':
            // Never sent: the item waits for another batch. Sent: its transaction went out and a reorg
            // could still mine it, so a new batch could pay it twice; it fails for the operator to settle.
            if (item.status === 'batched') await s.move(trx, item, 'approved', { plan_id: null, fee_units: null, txid: null }, false);
            else if (item.status === 'sent') await s.move(trx, item, 'failed', { failure_reason: "the transaction's input was spent by another transaction" });
            break;
          case 'replaced':
            if (change.replacedBy) await Item.query(trx).patch({ plan_id: change.replacedBy, updated_at: new Date() }).where('id', item.id);
            break;
          default:
            break;
        }
      }
    },
  };
}

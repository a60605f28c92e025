import type { Actor, AuditLog } from '@gw/kernel';
import type { PayoutPlanner } from '@gw/plugin-treasury/contract';
import type { Knex } from 'knex';
import type { BatchRequest, ItemScope, ItemView, PayoutBatches } from '../contract.js';
import { payoutsErrors } from '../errors.js';
import { Item } from '../models/item.js';
import { itemAudit } from './audit.js';
import type { ItemStore } from './item-store.js';
import { reaches } from './payout-approvals.js';

/**
 * Approved items into one treasury `payout` plan. The items are locked (`for update`), the plan
 * is stored and the items move to `batched` with its id in one transaction, so an item is in at
 * most one plan: a second batch finds it no longer `approved`.
 */
export class PayoutBatchesService implements PayoutBatches {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; treasuryPayouts: PayoutPlanner; payoutsStore: ItemStore }) {}

  async create(request: BatchRequest, actor: Actor, scope: ItemScope): Promise<{ planId: string; items: ItemView[] }> {
    if (!reaches(scope, request.projectId)) throw payoutsErrors.batch_empty({ details: { project_id: request.projectId } });
    const store = this.deps.payoutsStore;
    return this.deps.db.transaction(async (trx) => {
      const query = Item.query(trx)
        .where({ project_id: request.projectId, chain: request.chain, network: request.network, coin: request.coin, status: 'approved' })
        .orderBy('id')
        .forUpdate();
      if (request.itemIds) query.whereIn('id', [...request.itemIds]);
      const items = await query;
      if (items.length === 0) throw payoutsErrors.batch_empty();
      if (items.some((item) => item.project_kind === 'sandbox')) {
        throw payoutsErrors.batch_empty({
          message: "A sandbox project's refunds and payouts never go to a treasury plan: use the sandbox simulations (simulate-send, simulate-confirm).",
          details: { project_kind: 'sandbox' },
        });
      }
      const plan = await this.deps.treasuryPayouts.plan(
        trx,
        {
          projectId: request.projectId,
          chain: request.chain,
          network: request.network,
          coin: request.coin,
          recipients: items.map((item) => ({ reference: item.id, address: item.address!, units: item.amount_units })),
          source: request.source,
          ...(request.feeRate === undefined ? {} : { feeRate: request.feeRate }),
        },
        actor,
      );
      // Each item carries an equal share of the plan's fee (the first one the remainder).
      const count = BigInt(items.length);
      const share = plan.feeUnits / count;
      const batched: Item[] = [];
      for (const [index, item] of items.entries()) {
        const fee = share + (index === 0 ? plan.feeUnits - share * count : 0n);
        batched.push(await store.move(trx, item, 'batched', { plan_id: plan.planId, fee_units: fee }, false));
      }
      await this.deps.audit.recordMany(
        items.map((item) => itemAudit(actor, 'batch', item, { plan_id: plan.planId })),
        trx,
      );
      return { planId: plan.planId, items: await store.views(trx, batched) };
    });
  }
}

import { createHash } from 'node:crypto';
import { type Actor, type AuditLog, coreErrors } from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { ItemView } from '../contract.js';
import { payoutsErrors } from '../errors.js';
import type { ItemKind, ItemStatus } from '../item-status.js';
import { Approval } from '../models/approval.js';
import type { Item } from '../models/item.js';
import { itemAudit } from './audit.js';
import type { ItemStore } from './item-store.js';

export const ITEM_SIMULATIONS = ['claim', 'approve', 'send', 'confirm', 'fail'] as const;
export type ItemSimulation = (typeof ITEM_SIMULATIONS)[number];

/** What each simulation needs and where it leads; `claim` is for refunds only. `batched` items belong to a treasury plan, which a sandbox never has. */
export const ITEM_SIMULATION_RULES: Readonly<Record<ItemSimulation, { readonly from: readonly ItemStatus[]; readonly to: ItemStatus }>> = {
  claim: { from: ['awaiting_claim'], to: 'claimed' },
  approve: { from: ['claimed', 'pending_approval'], to: 'approved' },
  send: { from: ['approved'], to: 'sent' },
  confirm: { from: ['sent'], to: 'completed' },
  fail: { from: ['approved', 'sent'], to: 'failed' },
};

/** The approver recorded by a simulated approval. */
export const SANDBOX_APPROVER = 'sandbox';

/** A synthetic transaction id, deterministic from the item (64 hex). */
export function simulatedTxid(itemId: string): string {
  return createHash('sha256').update(`sandbox-payout:${itemId}`).digest('hex');
}

/**
 * The sandbox's simulations of an item's life (sandbox projects only, the routes check): each
 * writes the status change and the event a real one would, so partners test their handling
 * without money. A simulation its status does not allow is 409 `item_transition_invalid`.
 */
export class SandboxSimulations {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; invoicesService: InvoiceService; payoutsStore: ItemStore }) {}

  async simulate(projectId: string, kind: ItemKind, id: string, simulation: ItemSimulation, input: { address?: string }, actor: Actor): Promise<ItemView> {
    const store = this.deps.payoutsStore;
    return this.deps.db.transaction(async (trx) => {
      const item = await store.find(trx, projectId, kind, id, true);
      const rule = ITEM_SIMULATION_RULES[simulation];
      if ((simulation === 'claim' && kind !== 'refund') || !rule.from.includes(item.status)) {
        throw payoutsErrors.item_transition_invalid({ details: { status: item.status, simulation } });
      }
      let moved: Item;
      switch (simulation) {
        case 'claim': {
          // Default: the invoice's own deposit address, a valid address of the chain's test network.
          const address = input.address?.trim() || (await this.deps.invoicesService.get(projectId, item.invoice_id!, trx)).address;
          if (!address)
            throw coreErrors.validation_error({ message: 'address is required: the invoice has no deposit address.', details: { field: 'address' } });
          if (!store.validAddress(item, address)) throw payoutsErrors.claim_address_invalid({ details: { coin: item.coin, network: item.network } });
          moved = await store.move(trx, item, 'claimed', { address });
          break;
        }
        case 'approve':
          await Approval.query(trx).insert({ item_id: item.id, user_id: SANDBOX_APPROVER, created_at: new Date() }).onConflict(['item_id', 'user_id']).ignore();
          moved = await store.move(trx, item, 'approved');
          break;
        case 'send':
          moved = await store.move(trx, item, 'sent', { txid: simulatedTxid(item.id) });
          break;
        case 'confirm':
          moved = await store.move(trx, item, 'completed');
          break;
        case 'fail':
          moved = await store.move(trx, item, 'failed', { failure_reason: 'simulated failure' });
          break;
      }
      await this.deps.audit.record(itemAudit(actor, `simulate_${simulation}`, item), trx);
      return store.viewOf(trx, moved);
    });
  }
}

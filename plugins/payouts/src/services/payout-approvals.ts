import { type Actor, type AuditLog, coreErrors, isUniqueViolation } from '@gw/kernel';
import type { UserService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { ApprovalPolicy, ItemScope, ItemView, PayoutApprovals } from '../contract.js';
import { payoutsErrors } from '../errors.js';
import { ADMIN_CANCELLABLE_STATUSES, APPROVABLE_STATUSES, type ItemKind } from '../item-status.js';
import { Approval } from '../models/approval.js';
import { Item } from '../models/item.js';
import { approverId, type ApproverActor, isActiveAdmin } from './approver.js';
import { itemAudit } from './audit.js';
import type { ItemStore } from './item-store.js';
import type { Policies } from './policies.js';

const USD = /^\d{1,12}(\.\d{1,2})?$/;

/** Whether the scope reaches the project. */
export function reaches(scope: ItemScope, projectId: string): boolean {
  return scope.projectIds === undefined || scope.projectIds.includes(projectId);
}

/**
 * Administrators' side: approvals (one per administrator; an item becomes `approved` when it has
 * `approvals_required` distinct ones, and only then `*.approved` is emitted), cancels up to
 * approval, the queue and the per-project policy.
 */
export class PayoutApprovalsService implements PayoutApprovals {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyUsers: UserService; payoutsStore: ItemStore; payoutsPolicies: Policies }) {}

  async approve(itemId: string, actor: ApproverActor, scope: ItemScope): Promise<ItemView> {
    const userId = await approverId(actor, this.deps.tenancyUsers);
    const store = this.deps.payoutsStore;
    try {
      return await this.deps.db.transaction(async (trx) => {
        const item = await this.scoped(trx, itemId, scope);
        if (!APPROVABLE_STATUSES.includes(item.status)) throw payoutsErrors.item_not_approvable({ details: { status: item.status } });
        await Approval.query(trx).insert({ item_id: item.id, user_id: userId, created_at: new Date() });
        const given = await this.countingApprovals(trx, item.id);
        await this.deps.audit.record(itemAudit(actor, 'approve', item, { approvals: given, approvals_required: item.approvals_required }), trx);
        const now = given >= item.approvals_required ? await store.move(trx, item, 'approved') : item;
        return store.viewOf(trx, now);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw payoutsErrors.approval_already_given();
      throw error;
    }
  }

  async cancel(itemId: string, actor: Actor, scope: ItemScope): Promise<ItemView> {
    const store = this.deps.payoutsStore;
    return this.deps.db.transaction(async (trx) => {
      const item = await this.scoped(trx, itemId, scope);
      if (!ADMIN_CANCELLABLE_STATUSES.includes(item.status)) throw payoutsErrors.item_not_cancellable({ details: { status: item.status } });
      const moved = await store.move(trx, item, 'cancelled');
      await this.deps.audit.record(itemAudit(actor, 'cancel', item), trx);
      return store.viewOf(trx, moved);
    });
  }

  async pending(scope: ItemScope, kind?: ItemKind): Promise<ItemView[]> {
    const query = Item.query(this.deps.db)
      .whereIn('status', ['awaiting_claim', ...APPROVABLE_STATUSES, 'approved'])
      .orderBy('id');
    if (scope.projectIds !== undefined) query.whereIn('project_id', scope.projectIds);
    if (kind) query.where('kind', kind);
    return this.deps.payoutsStore.views(this.deps.db, await query);
  }

  policy(projectId: string): Promise<ApprovalPolicy> {
    return this.deps.payoutsPolicies.get(projectId);
  }

  async setPolicy(projectId: string, policy: ApprovalPolicy, actor: Actor): Promise<ApprovalPolicy> {
    for (const [field, value] of Object.entries(policy)) {
      if (value !== null && (typeof value !== 'string' || !USD.test(value))) {
        throw coreErrors.validation_error({ message: `${field} must be a USD decimal with at most 2 places, or null.`, details: { field } });
      }
    }
    return this.deps.payoutsPolicies.set(projectId, policy, actor);
  }

  /** The item's approvals that count now: by users who are still active administrators (not since demoted or disabled). */
  private async countingApprovals(trx: Knex.Transaction, itemId: string): Promise<number> {
    const approvals = await Approval.query(trx).where('item_id', itemId);
    const users = await Promise.all(approvals.map((a) => this.deps.tenancyUsers.find(a.user_id)));
    return users.filter(isActiveAdmin).length;
  }

  /** The item, locked, when the scope reaches its project; 404 otherwise. */
  private async scoped(trx: Knex.Transaction, itemId: string, scope: ItemScope): Promise<Item> {
    const item = await Item.query(trx).findById(itemId).forUpdate();
    if (!item || !reaches(scope, item.project_id)) {
      throw item?.kind === 'payout'
        ? payoutsErrors.payout_not_found()
        : payoutsErrors.refund_not_found({ message: 'No such refund or payout in your projects.' });
    }
    return item;
  }
}

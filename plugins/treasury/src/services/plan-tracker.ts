import { type Actor, AppError, type AuditLog, type ChainId } from '@gw/kernel';
import type { Logger } from 'pino';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import type { Knex } from 'knex';
import { treasuryErrors } from '../errors.js';
import { Plan } from '../models/plan.js';
import { PlanInput } from '../models/plan-input.js';
import { UNSENT_STATUSES } from '../plan-status.js';
import { planView, type PlanView } from '../plan-view.js';
import type { PlanStatusChanges } from './plan-status-change.js';
import type { TreasuryNetworks } from './treasury-networks.js';
import type { TreasuryPlans } from './treasury-plans.js';
import type { TreasuryScope } from './treasury-scope.js';

const SYSTEM: Actor = { actor: 'system', channel: 'system' };

/** What one tracking pass did. */
export interface TrackReport {
  readonly confirmed: string[];
  readonly reorged: string[];
  readonly invalidated: string[];
  readonly proceeded: string[];
}

/**
 * Broadcast and what follows (issue 35 item 5): sends a signed plan through the network's
 * providers, follows it to the chain's confirmations (a reorg drops it back to `broadcast`), and
 * invalidates open plans an input of which another transaction spent (the operator's own wallet,
 * a replacement that won).
 */
export class PlanTracker {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      logger: Logger;
      watchersOutputs: ReceivedOutputs;
      treasuryNetworks: TreasuryNetworks;
      treasuryPlans: TreasuryPlans;
      treasuryPlanStatus: PlanStatusChanges;
    },
  ) {}

  /**
   * Sends a signed plan. Idempotent: a plan already broadcast answers as it stands (providers
   * accept a transaction they already have). A provider's refusal marks the plan `failed` and
   * frees its outputs; a provider that cannot be reached throws (the job retries).
   */
  async broadcast(planId: string, scope: TreasuryScope, actor: Actor): Promise<PlanView> {
    const plan = await this.deps.treasuryPlans.requirePlan(planId, scope);
    if (plan.status === 'broadcast' || plan.status === 'confirmed') return this.view(plan);
    if (plan.status !== 'signed') throw treasuryErrors.treasury_plan_not_broadcastable({ details: { status: plan.status } });
    const target = this.deps.treasuryNetworks.get(plan.chain, plan.network);
    let txid: string;
    try {
      txid = await target.treasury.broadcast({ txid: plan.txid!, hex: plan.signed_hex! });
    } catch (error) {
      if (error instanceof AppError && error.code === 'treasury_broadcast_rejected') {
        await this.deps.db.transaction(async (trx) => {
          const locked = await Plan.query(trx).findById(planId).forUpdate();
          if (locked?.status !== 'signed') return;
          await PlanInput.query(trx).patch({ held: false }).where({ plan_id: planId });
          await Plan.query(trx).patch({ status: 'failed', failure: error.message, updated_at: new Date() }).where('id', planId);
          await this.deps.audit.record(
            { ...actor, action: 'treasury.plan.broadcast_rejected', target: `treasury_plan:${planId}`, details: { reason: error.message } },
            trx,
          );
          // A refused replacement: the transaction it would have replaced is still out there.
          await this.deps.treasuryPlans.endUnsentBump(trx, locked, actor, { refused_bump: planId }, { reason: error.message });
        });
      }
      throw error;
    }
    return this.deps.db.transaction(async (trx) => {
      const locked = await Plan.query(trx).findById(planId).forUpdate();
      if (locked!.status !== 'signed') return this.view(locked!, trx);
      const now = new Date();
      const updated = await Plan.query(trx).patchAndFetchById(planId, { status: 'broadcast', broadcast_at: now, updated_at: now });
      await this.deps.audit.record({ ...actor, action: 'treasury.plan.broadcast', target: `treasury_plan:${planId}`, details: { txid } }, trx);
      await this.deps.treasuryPlanStatus.changed(trx, planId, 'signed');
      return this.view(updated, trx);
    });
  }

  /** One pass: open plans' inputs, plans waiting for their fee, broadcast plans' confirmations. */
  async track(): Promise<TrackReport> {
    // Inputs spent elsewhere first: a waiting plan that lost one is not built.
    const invalidated = await this.invalidateSpent();
    const proceeded = await this.deps.treasuryPlans.proceedWaiting();
    const confirmed: string[] = [];
    const reorged: string[] = [];
    const sent = await Plan.query(this.deps.db)
      .whereNull('method')
      .where((q) => q.whereIn('status', ['broadcast', 'confirmed']).orWhere((r) => r.where('status', 'replaced').whereNotNull('broadcast_at')))
      .where((q) => q.whereNull('confirmed_at').orWhere('confirmed_at', '>', new Date(Date.now() - 86_400_000)))
      .orderBy('id');
    for (const plan of sent) {
      const target = this.deps.treasuryNetworks.find(plan.chain, plan.network);
      if (!target) continue;
      let state;
      try {
        state = await target.treasury.transaction(plan.txid!);
      } catch (error) {
        // One provider failing stops nothing else: the next pass asks again.
        this.deps.logger.warn({ plan: plan.id, err: error }, 'treasury transaction state unavailable');
        continue;
      }
      const confirmations = state?.confirmations ?? 0;
      const enough = confirmations >= target.confirmations;
      const status = enough ? 'confirmed' : plan.status === 'confirmed' ? 'broadcast' : plan.status;
      if (status === plan.status && confirmations === plan.confirmations && (state?.blockHeight ?? null) === plan.block_height) continue;
      await this.deps.db.transaction(async (trx) => {
        const now = new Date();
        const patched = await Plan.query(trx)
          .patch({
            status,
            confirmations,
            block_height: state?.blockHeight ?? null,
            block_hash: state?.blockHash ?? null,
            confirmed_at: enough ? (plan.confirmed_at ?? now) : null,
            updated_at: now,
          })
          // Only over the status this pass read: a bump or a second tracker that changed it since wins.
          .where({ id: plan.id, status: plan.status });
        if (patched === 0) return;
        if (status !== plan.status) {
          const action = status === 'confirmed' ? 'treasury.plan.confirmed' : 'treasury.plan.reorged';
          await this.deps.audit.record({ ...SYSTEM, action, target: `treasury_plan:${plan.id}`, details: { txid: plan.txid, confirmations } }, trx);
          await this.deps.treasuryPlanStatus.changed(trx, plan.id, plan.status);
        }
      });
      if (status === 'confirmed' && plan.status !== 'confirmed') confirmed.push(plan.id);
      if (plan.status === 'confirmed' && status !== 'confirmed') reorged.push(plan.id);
    }
    return { confirmed, reorged, invalidated, proceeded };
  }

  /**
   * Open plans (not yet confirmed) with an input spent by another transaction, or no longer
   * received (its payment reverted), become `invalidated` and free their other outputs.
   */
  async invalidateSpent(): Promise<string[]> {
    const open = await Plan.query(this.deps.db)
      .whereNull('method')
      .whereIn('status', [...UNSENT_STATUSES, 'broadcast'])
      .orderBy('id');
    const invalidated: string[] = [];
    const byNetwork = new Map<string, Plan[]>();
    for (const plan of open) byNetwork.set(`${plan.chain}\u0000${plan.network}`, [...(byNetwork.get(`${plan.chain}\u0000${plan.network}`) ?? []), plan]);
    for (const plans of byNetwork.values()) {
      const { chain, network } = plans[0]!;
      const inputs = await PlanInput.query(this.deps.db)
        .whereIn(
          'plan_id',
          plans.map((p) => p.id),
        )
        .where('held', true);
      const outputs = await this.deps.watchersOutputs.byOutpoints(
        chain as ChainId,
        network,
        inputs.map((i) => ({ txHash: i.tx_hash, outputIndex: i.output_index })),
      );
      const state = new Map(outputs.map((o) => [`${o.txHash}:${o.outputIndex}`, o]));
      for (const plan of plans) {
        const mine = inputs.filter((i) => i.plan_id === plan.id);
        const lost = mine.find((i) => {
          const output = state.get(`${i.tx_hash}:${i.output_index}`);
          return !output || output.status === 'reverted' || (output.spentBy !== null && output.spentBy !== plan.txid);
        });
        if (!lost) continue;
        const output = state.get(`${lost.tx_hash}:${lost.output_index}`);
        const reason =
          output && output.status !== 'reverted'
            ? `input ${lost.tx_hash}:${lost.output_index} spent by ${output.spentBy}`
            : `input ${lost.tx_hash}:${lost.output_index} no longer received (its payment was reorganised away)`;
        // A bump whose input a transaction it would have replaced spent (one of its chain of
        // replaced plans was mined first): what it paid is that plan's, so observers move what they
        // follow there.
        const replacedBy = output?.spentBy ? await this.replacedSpender(plan, output.spentBy) : undefined;
        const changed = await this.deps.db.transaction(async (trx) => {
          const locked = await Plan.query(trx).findById(plan.id).forUpdate();
          if (!locked || locked.status !== plan.status) return false;
          await PlanInput.query(trx).patch({ held: false }).where({ plan_id: plan.id });
          await Plan.query(trx).patch({ status: 'invalidated', failure: reason, updated_at: new Date() }).where('id', plan.id);
          await this.deps.audit.record(
            { ...SYSTEM, action: 'treasury.plan.invalidated', target: `treasury_plan:${plan.id}`, details: { was: plan.status, reason } },
            trx,
          );
          await this.deps.treasuryPlanStatus.changed(trx, plan.id, plan.status, { reason, ...(replacedBy ? { replacedBy } : {}) });
          if (replacedBy) {
            // That plan may have confirmed already: what now follows it hears where it stands.
            const mined = await Plan.query(trx).findById(replacedBy);
            if (mined) await this.deps.treasuryPlanStatus.changed(trx, mined.id, mined.status);
          }
          return true;
        });
        if (changed) {
          invalidated.push(plan.id);
          this.deps.logger.warn({ plan: plan.id, reason }, 'treasury plan invalidated');
        }
      }
    }
    return invalidated;
  }

  /** The plan of `plan`'s chain of replaced plans (`replaces_plan_id`, nearest first) whose transaction is `txid`. */
  private async replacedSpender(plan: Plan, txid: string): Promise<string | undefined> {
    const seen = new Set<string>([plan.id]);
    let next = plan.replaces_plan_id;
    while (next && !seen.has(next)) {
      seen.add(next);
      const older = await Plan.query(this.deps.db).findById(next);
      if (!older) return undefined;
      if (older.txid === txid) return older.id;
      next = older.replaces_plan_id;
    }
    return undefined;
  }

  private async view(plan: Plan, db: Knex | Knex.Transaction = this.deps.db): Promise<PlanView> {
    return planView(plan, await PlanInput.query(db).where('plan_id', plan.id).orderBy('id'));
  }
}

import { type Actor, AppError, type AuditLog } from '@gw/kernel';
import type { Logger } from 'pino';
import type { Knex } from 'knex';
import type { AccountPlanView } from '../account-plan-view.js';
import { treasuryErrors } from '../errors.js';
import { Plan } from '../models/plan.js';
import { PlanStep, stepOf } from '../models/plan-step.js';
import type { AccountNetwork, AccountNetworks } from './account-networks.js';
import type { AccountPlans } from './account-plans.js';
import type { PlanStatusChanges } from './plan-status-change.js';
import type { Sweepers } from './sweepers.js';
import type { TreasuryScope } from './treasury-scope.js';

const SYSTEM: Actor = { actor: 'system', channel: 'system' };

/** How long a sent transaction the chain does not know is sent again before its step (and plan) fails. */
export const UNSEEN_LIMIT_MS = 60 * 60_000;

/** What one tracking pass of account plans did. */
export interface AccountTrackReport {
  readonly advanced: string[];
  readonly confirmed: string[];
  readonly failed: string[];
}

/**
 * Broadcast of account plans stage by stage (issue 36): before the first transaction of a plan is
 * sent, and again before each later stage, the chain's treasury checks every nonce of it is still
 * fresh; a stale one fails the whole plan with `treasury_nonce_stale` and nothing more is sent, so a
 * plan is never half-broadcast because an account moved on. Then stage 1 is sent; the tracking pass sends stage n + 1 once every
 * transaction of stage n has the chain's confirmations, and marks the plan confirmed after the last.
 */
export class AccountBroadcaster {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      logger: Logger;
      treasuryAccountNetworks: AccountNetworks;
      treasuryAccountPlans: AccountPlans;
      treasurySweepers: Sweepers;
      treasuryPlanStatus: PlanStatusChanges;
    },
  ) {}

  /**
   * Sends the first stage of a signed plan. Idempotent: a plan already broadcast answers as it
   * stands (its later stages are the tracking pass's). A stale nonce or a provider's refusal marks
   * the plan `failed` (its addresses free again) and throws; a provider out of reach throws and
   * changes nothing.
   */
  async broadcast(planId: string, scope: TreasuryScope, actor: Actor): Promise<AccountPlanView> {
    const found = await this.deps.treasuryAccountPlans.requirePlan(planId, scope);
    const target = this.deps.treasuryAccountNetworks.get(found.chain, found.network);
    // The plan's row stays locked while its first stage goes out: a cancel (or a second broadcast)
    // waits for it, then sees the plan broadcast, or its steps sent. A refusal recorded inside is
    // committed, then thrown.
    const refused = await this.deps.db.transaction(async (trx): Promise<AppError | null> => {
      const plan = await Plan.query(trx).findById(planId).forUpdate();
      if (plan!.status === 'broadcast' || plan!.status === 'confirmed') return null;
      if (plan!.status !== 'signed') throw treasuryErrors.treasury_plan_not_broadcastable({ details: { status: plan!.status } });
      const steps = await PlanStep.query(trx).where({ plan_id: planId, kind: 'transaction' }).orderBy('id');
      if (steps.length === 0)
        throw treasuryErrors.treasury_plan_not_broadcastable({ message: 'The plan has no transaction to send.', details: { status: plan!.status } });
      const stale = await this.staleness(target, planId);
      if (stale) {
        await this.fail(planId, 'signed', stale, actor, trx);
        return stale;
      }
      const first = Math.min(...steps.map((s) => s.stage));
      try {
        await this.sendStage(target, plan!, first, actor, trx);
      } catch (error) {
        // A refusal by the provider failed the plan in `trx`; anything else (out of reach) changes nothing but the steps already sent.
        if (error instanceof AppError && error.code === 'treasury_broadcast_rejected') return error;
        throw error;
      }
      return null;
    });
    if (refused) throw refused;
    return this.deps.treasuryAccountPlans.view((await Plan.query(this.deps.db).findById(planId))!);
  }

  /**
   * The chain's freshness check over every step of both rounds (a round-2 submission carries
   * authorizations valid only at their accounts' nonces; steps already on chain pass): the
   * `treasury_nonce_stale` error when a nonce went stale, else null.
   */
  private async staleness(target: AccountNetwork, planId: string): Promise<AppError | null> {
    const all = await PlanStep.query(this.deps.db).where({ plan_id: planId }).orderBy('id');
    const sent = new Map(all.filter((s) => s.txid !== null).map((s) => [s.step_id, s.txid!] as const));
    try {
      await target.treasury.checkFresh(all.map(stepOf), sent);
      return null;
    } catch (error) {
      if (error instanceof AppError && error.code === 'treasury_nonce_stale') return error;
      throw error;
    }
  }

  /** One pass: the confirmations of broadcast plans' current stage; the next stage sent once it is confirmed. */
  async track(): Promise<AccountTrackReport> {
    const report: AccountTrackReport = { advanced: [], confirmed: [], failed: [] };
    // A failed plan's transactions already sent are still followed to confirmed or failed: what
    // they moved is counted, and no step stays `broadcast` for ever.
    const plans = await Plan.query(this.deps.db)
      .whereNotNull('method')
      .where((q) =>
        q
          .where('status', 'broadcast')
          .orWhereExists(PlanStep.query().whereColumn('treasury_plan_steps.plan_id', 'treasury_plans.id').where('treasury_plan_steps.status', 'broadcast')),
      )
      .orderBy('id');
    for (const plan of plans) {
      const target = this.deps.treasuryAccountNetworks.find(plan.chain, plan.network);
      if (!target) continue;
      try {
        const outcome = plan.status === 'broadcast' ? await this.trackPlan(target, plan) : await this.followSent(target, plan);
        if (outcome) report[outcome].push(plan.id);
      } catch (error) {
        // One plan or provider failing stops nothing else: the next pass asks again.
        this.deps.logger.warn({ plan: plan.id, err: error }, 'treasury account plan not tracked');
      }
    }
    return report;
  }

  /**
   * One sent step's state on chain, recorded: `failed` when it was included but failed, `confirmed`
   * once it has the chain's confirmations, else `waiting`.
   */
  private async followStep(target: AccountNetwork, step: PlanStep): Promise<{ failed: string } | 'confirmed' | 'waiting'> {
    const state = await target.treasury.transaction(step.txid!);
    if (state === null) return this.unseen(target, step);
    if (state.failed !== undefined) {
      await PlanStep.query(this.deps.db)
        .patch({ status: 'failed', failure: `included in a block but failed: ${state.failed}`, block_height: state.blockHeight })
        .where({ id: step.id, status: 'broadcast' });
      return { failed: `failed on chain (${state.failed})` };
    }
    const confirmations = state?.confirmations ?? 0;
    const enough = confirmations >= target.confirmations;
    if (confirmations !== step.confirmations || enough) {
      await PlanStep.query(this.deps.db)
        .patch({
          confirmations,
          block_height: state?.blockHeight ?? null,
          ...(enough ? { status: 'confirmed', confirmed_at: new Date() } : {}),
        })
        .where({ id: step.id, status: 'broadcast' });
    }
    return enough ? 'confirmed' : 'waiting';
  }

  /**
   * A sent step the chain does not know (dropped from the mempool, a maximum fee below the base
   * fee, a provider that lost it): sent again on each pass, which is harmless (a provider that has
   * it answers with its id). Unseen `UNSEEN_LIMIT_MS` after its first broadcast, it is failed, with
   * the freshness check's answer in its failure (an account that moved on past its nonce), so its
   * plan fails and frees its addresses (docs/decisions.md).
   */
  private async unseen(target: AccountNetwork, step: PlanStep): Promise<{ failed: string } | 'waiting'> {
    const sentAt = step.broadcast_at ? new Date(step.broadcast_at).getTime() : Date.now();
    if (Date.now() - sentAt < UNSEEN_LIMIT_MS) {
      try {
        await target.treasury.broadcast({ txid: step.txid!, hex: step.signed! });
      } catch (error) {
        // Refused or out of reach: asked again next pass, until the limit.
        this.deps.logger.warn({ plan: step.plan_id, step: step.step_id, err: error }, 'treasury step not seen on chain; sending it again failed');
      }
      return 'waiting';
    }
    const stale = await this.staleness(target, step.plan_id);
    const reason = `was not seen on chain ${UNSEEN_LIMIT_MS / 60_000} minutes after its broadcast${stale ? ` (${stale.message})` : ''}`;
    await PlanStep.query(this.deps.db).patch({ status: 'failed', failure: reason }).where({ id: step.id, status: 'broadcast' });
    return { failed: reason };
  }

  /**
   * A plan no longer broadcast (failed) whose sent steps are still followed until each is confirmed
   * or failed. Each such end is told to the plan's observers again (its status repeated), so what
   * a payout's step paid completes, or fails, once it is known.
   */
  private async followSent(target: AccountNetwork, plan: Plan): Promise<null> {
    const sent = await PlanStep.query(this.deps.db).where({ plan_id: plan.id, kind: 'transaction', status: 'broadcast' }).orderBy('id');
    for (const step of sent) {
      const outcome = await this.followStep(target, step);
      if (outcome !== 'waiting') await this.deps.db.transaction((trx) => this.deps.treasuryPlanStatus.changed(trx, plan.id, plan.status));
    }
    return null;
  }

  private async trackPlan(target: AccountNetwork, plan: Plan): Promise<keyof AccountTrackReport | null> {
    const steps = await PlanStep.query(this.deps.db).where({ plan_id: plan.id, kind: 'transaction' }).orderBy('id');
    const current = steps.filter((s) => s.stage === plan.stage);
    let allConfirmed = true;
    let failed: { step: PlanStep; reason: string } | undefined;
    // Every step of the stage is followed, even after one failed: the others were sent too.
    for (const step of current) {
      if (step.status === 'confirmed') continue;
      const outcome = await this.followStep(target, step);
      if (typeof outcome === 'object') failed ??= { step, reason: outcome.failed };
      if (outcome !== 'confirmed') allConfirmed = false;
    }
    // Included but failed (an EVM receipt's status 0; TRON's OUT_OF_ENERGY): the plan stops
    // here, its later stages unsent, and its addresses are free for a new plan.
    if (failed) {
      await this.fail(
        plan.id,
        'broadcast',
        treasuryErrors.treasury_broadcast_rejected({
          message: `The transaction ${failed.step.txid} of step ${failed.step.step_id} ${failed.reason}.`,
        }),
        SYSTEM,
      );
      return 'failed';
    }
    if (!allConfirmed) return null;
    const later = steps.filter((s) => s.stage > plan.stage!);
    if (later.length > 0) {
      // Checked again before each later stage: an account that moved on since stage 1 fails the
      // plan here, rather than a transaction sent into the conflict.
      const stale = await this.staleness(target, plan.id);
      if (stale) {
        await this.fail(plan.id, 'broadcast', stale, SYSTEM);
        return 'failed';
      }
      await this.sendStage(target, plan, Math.min(...later.map((s) => s.stage)), SYSTEM);
      return 'advanced';
    }
    const confirmed = await this.deps.db.transaction(async (trx) => {
      const now = new Date();
      const patched = await Plan.query(trx)
        .patch({ status: 'confirmed', confirmed_at: now, confirmations: target.confirmations, updated_at: now })
        .where({ id: plan.id, status: 'broadcast' });
      if (patched === 0) return false;
      await this.deps.treasuryAccountPlans.release(trx, plan.id, 'confirmed');
      // A confirmed sweeper deployment: its contract becomes the destination's sweeper.
      const sweeper = plan.kind === 'sweeper_deployment' ? plan.context?.['sweeper'] : undefined;
      if (typeof sweeper === 'string') {
        await this.deps.treasurySweepers.record(trx, {
          chain: plan.chain,
          network: plan.network,
          destination: plan.destination,
          contract: sweeper,
          planId: plan.id,
        });
      }
      await this.deps.audit.record({ ...SYSTEM, action: 'treasury.plan.confirmed', target: `treasury_plan:${plan.id}`, details: { steps: steps.length } }, trx);
      await this.deps.treasuryPlanStatus.changed(trx, plan.id, 'broadcast');
      return true;
    });
    return confirmed ? 'confirmed' : null;
  }

  /**
   * Sends every signed transaction of `stage` in step order (one account's nonces in sequence), each
   * marked broadcast as soon as it is sent (outside `trx`: a provider dropping mid-stage leaves the
   * sent ones marked, so the plan cannot be cancelled). The plan's own row is written in `trx` when
   * the caller holds its lock.
   */
  private async sendStage(target: AccountNetwork, plan: Plan, stage: number, actor: Actor, trx?: Knex.Transaction): Promise<void> {
    const steps = await PlanStep.query(this.deps.db).where({ plan_id: plan.id, kind: 'transaction', stage }).orderBy('id');
    for (const step of steps) {
      if (step.status !== 'signed') continue;
      let txid: string;
      try {
        txid = await target.treasury.broadcast({ txid: step.txid!, hex: step.signed! });
      } catch (error) {
        if (error instanceof AppError && error.code === 'treasury_broadcast_rejected') {
          await PlanStep.query(this.deps.db).patch({ status: 'failed', failure: error.message }).where('id', step.id);
          await this.fail(plan.id, plan.status, error, actor, trx);
        }
        throw error;
      }
      await PlanStep.query(this.deps.db).patch({ status: 'broadcast', txid, broadcast_at: new Date() }).where('id', step.id);
    }
    const mark = async (trx: Knex.Transaction): Promise<void> => {
      const now = new Date();
      const patched = await Plan.query(trx)
        .patch({ status: 'broadcast', stage, ...(plan.broadcast_at ? {} : { broadcast_at: now }), updated_at: now })
        .where('id', plan.id)
        .whereIn('status', ['signed', 'broadcast']);
      if (patched === 0) return;
      await this.deps.audit.record(
        { ...actor, action: 'treasury.plan.broadcast', target: `treasury_plan:${plan.id}`, details: { stage, transactions: steps.length } },
        trx,
      );
      if (plan.status !== 'broadcast') await this.deps.treasuryPlanStatus.changed(trx, plan.id, plan.status);
    };
    await (trx ? mark(trx) : this.deps.db.transaction(mark));
  }

  /** Fails the plan if it is still `was` (in `outer` when the caller holds the plan's lock). */
  private async fail(planId: string, was: string, error: AppError, actor: Actor, outer?: Knex.Transaction): Promise<void> {
    const run = async (trx: Knex.Transaction): Promise<void> => {
      const locked = await Plan.query(trx).findById(planId).forUpdate();
      if (locked?.status !== was) return;
      // An energy delegation failed once its delegation went out: its reclaim is never sent (docs/treasury.md, TRON).
      const lent =
        locked.method === 'energy_delegation' && was === 'broadcast'
          ? ' The energy delegated in stage 1 stays lent: reclaim it from the staking account with UnDelegateResource (docs/treasury.md, TRON).'
          : '';
      await Plan.query(trx)
        .patch({ status: 'failed', failure: `${error.code}: ${error.message}${lent}`, updated_at: new Date() })
        .where('id', planId);
      await this.deps.treasuryAccountPlans.release(trx, planId, 'failed');
      await this.deps.audit.record(
        {
          ...actor,
          action: error.code === 'treasury_nonce_stale' ? 'treasury.plan.nonce_stale' : 'treasury.plan.broadcast_rejected',
          target: `treasury_plan:${planId}`,
          details: { reason: error.message },
        },
        trx,
      );
      await this.deps.treasuryPlanStatus.changed(trx, planId, locked.status, { reason: error.message });
    };
    await (outer ? run(outer) : this.deps.db.transaction(run));
  }
}

import type { Extensions } from '@gw/kernel';
import type { Knex } from 'knex';
import { Plan, recipientsOf } from '../models/plan.js';
import { PlanStep } from '../models/plan-step.js';
import { TREASURY_PLAN_OBSERVERS, type PayoutRecipientOutcome, type PlanStatusChange } from '../plan-observers.js';
import type { PlanStatus } from '../plan-status.js';

/**
 * The one place a plan's status change reaches the plugins that follow plans
 * (`TREASURY_PLAN_OBSERVERS`): every service that writes a plan's status calls `changed` in the
 * same transaction, after the write, so what an observer writes commits with the change or not at
 * all, and an observer's error rolls the change back.
 */
export class PlanStatusChanges {
  constructor(private readonly deps: { extensions: Extensions }) {}

  /**
   * Tells the observers of the plan's kind that it went from `previousStatus` to the status it has
   * now in `trx` (creation: `previousStatus` equal to it). `replacedBy` for `replaced`; `reason`
   * defaults to the plan's failure for `failed` and `invalidated`.
   */
  async changed(trx: Knex.Transaction, planId: string, previousStatus: PlanStatus, extra: { replacedBy?: string; reason?: string } = {}): Promise<void> {
    const observers = this.deps.extensions.of(TREASURY_PLAN_OBSERVERS).map((c) => c.item);
    if (observers.length === 0) return;
    const plan = await Plan.query(trx).findById(planId);
    if (!plan) return;
    const following = observers.filter((o) => o.kinds.includes(plan.kind));
    if (following.length === 0) return;
    const reason = extra.reason ?? (plan.status === 'failed' || plan.status === 'invalidated' ? (plan.failure ?? undefined) : undefined);
    const change: PlanStatusChange = {
      planId: plan.id,
      kind: plan.kind,
      chain: plan.chain,
      network: plan.network,
      previousStatus,
      status: plan.status,
      ...(extra.replacedBy ? { replacedBy: extra.replacedBy } : {}),
      ...(reason !== undefined ? { reason } : {}),
      ...(plan.kind === 'payout' ? { recipients: await outcomes(trx, plan) } : {}),
    };
    for (const observer of following) await observer.onStatus(trx, change);
  }
}

/**
 * Where each recipient of a payout plan stands. UTXO: one transaction pays them all, so each has
 * its txid once signed and the plan's outcome. Account chains: recipient n is paid by the n-th
 * transaction step (checked by its `to`; else the step that pays that address that amount).
 */
async function outcomes(trx: Knex.Transaction, plan: Plan): Promise<PayoutRecipientOutcome[]> {
  const recipients = recipientsOf(plan);
  if (plan.method === null) {
    const outcome = plan.status === 'confirmed' ? 'confirmed' : plan.status === 'failed' ? 'failed' : 'pending';
    return recipients.map((r) => ({
      reference: r.reference,
      txid: plan.signed_hex ? plan.txid : null,
      outcome,
      ...(outcome === 'failed' && plan.failure ? { reason: plan.failure } : {}),
    }));
  }
  const steps = await PlanStep.query(trx).where({ plan_id: plan.id, kind: 'transaction' }).orderBy('id');
  const used = new Set<PlanStep>();
  const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  return recipients.map((r, n) => {
    const byOrder = steps[n] && !used.has(steps[n]) && same(steps[n].to_address, r.address) ? steps[n] : undefined;
    const step = byOrder ?? steps.find((s) => !used.has(s) && same(s.to_address, r.address) && (s.moves[plan.coin] ?? '0') === r.units) ?? undefined;
    if (!step)
      return {
        reference: r.reference,
        txid: null,
        outcome: plan.status === 'failed' ? 'failed' : 'pending',
        ...(plan.failure ? { reason: plan.failure } : {}),
      };
    used.add(step);
    const outcome =
      step.status === 'confirmed' ? 'confirmed' : step.status === 'failed' || (plan.status === 'failed' && step.status !== 'broadcast') ? 'failed' : 'pending';
    const reason = step.failure ?? plan.failure;
    return {
      reference: r.reference,
      txid: step.txid,
      outcome,
      ...(outcome === 'failed' && reason ? { reason } : {}),
    };
  });
}

import type { Actor, AuditLog } from '@gw/kernel';
import type { Knex } from 'knex';
import type { PayoutsConfig } from '../config.js';
import type { ApprovalPolicy } from '../contract.js';
import { Policy } from '../models/policy.js';
import { decimalAbove } from './money.js';

/** The claim-proof threshold when neither the project nor the configuration sets one. */
export const DEFAULT_CLAIM_PROOF_ABOVE_USD = '1000';

/** Each project's approval policy (`payouts_policies`) and the thresholds it sets. */
export class Policies {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; payoutsConfig: PayoutsConfig }) {}

  async get(projectId: string, db: Knex | Knex.Transaction = this.deps.db): Promise<ApprovalPolicy> {
    const row = await Policy.query(db).findById(projectId);
    return { dualApprovalAboveUsd: row?.dual_approval_above_usd ?? null, claimProofAboveUsd: row?.claim_proof_above_usd ?? null };
  }

  async set(projectId: string, policy: ApprovalPolicy, actor: Actor): Promise<ApprovalPolicy> {
    await this.deps.db.transaction(async (trx) => {
      await trx('payouts_policies')
        .insert({
          project_id: projectId,
          dual_approval_above_usd: policy.dualApprovalAboveUsd,
          claim_proof_above_usd: policy.claimProofAboveUsd,
          updated_at: new Date(),
        })
        .onConflict('project_id')
        .merge();
      await this.deps.audit.record(
        {
          actor: actor.actor,
          channel: actor.channel,
          requestId: actor.requestId ?? null,
          action: 'payouts.policy_set',
          projectId,
          target: `project:${projectId}`,
          details: { ...policy },
        },
        trx,
      );
    });
    return this.get(projectId);
  }

  /**
   * Approvals an item of `usd` (valued at today's quote, else its payment's rate) needs: two above the
   * dual-approval threshold (or when its value is unknown under one), else one.
   */
  approvalsRequired(policy: ApprovalPolicy, usd: string | null): number {
    if (policy.dualApprovalAboveUsd === null) return 1;
    return usd === null || decimalAbove(usd, policy.dualApprovalAboveUsd) ? 2 : 1;
  }

  /**
   * Whether a claim of `usd` (the item valued at today's quote, else its payment's rate) must carry a
   * signature by the address. An unknown value must: it may be above the threshold.
   */
  claimNeedsProof(policy: ApprovalPolicy, usd: string | null): boolean {
    const threshold = policy.claimProofAboveUsd ?? this.deps.payoutsConfig.claimProofAboveUsd ?? DEFAULT_CLAIM_PROOF_ABOVE_USD;
    return usd === null || decimalAbove(usd, threshold);
  }
}

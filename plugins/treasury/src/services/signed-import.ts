import { type Actor, AppError, type AuditLog, type JobQueue } from '@gw/kernel';
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { treasuryErrors } from '../errors.js';
import { Plan } from '../models/plan.js';
import { PlanInput } from '../models/plan-input.js';
import { BROADCAST_JOB } from '../plan-status.js';
import { planView, type PlanView } from '../plan-view.js';
import type { SpendSources } from './spend-sources.js';
import type { PlanStatusChanges } from './plan-status-change.js';
import { storedTransaction } from './stored-transaction.js';
import type { TreasuryNetworks } from './treasury-networks.js';
import type { TreasuryPlans } from './treasury-plans.js';
import type { TreasuryScope } from './treasury-scope.js';

/** What an import read: the plan it is for (from a SignedFile) and the signed transaction. */
interface ReadSigned {
  readonly planId: string | undefined;
  readonly chain: string | undefined;
  readonly network: string | undefined;
  readonly signed: string;
}

/**
 * Takes a signed transaction back (issue 35 item 5): a `SignedFile` JSON or the bare signed PSBT
 * or transaction a wallet exports. The chain's treasury checks that it is exactly the plan
 * (inputs, outputs, amounts, fee, a valid signature per input) before anything is written. A
 * second import of the same signed text answers as the first did; a different one for a plan
 * already signed is refused. A refused import is audited too.
 */
export class SignedImport {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      jobs: JobQueue;
      treasuryNetworks: TreasuryNetworks;
      treasurySources: SpendSources;
      treasuryPlans: TreasuryPlans;
      treasuryPlanStatus: PlanStatusChanges;
    },
  ) {}

  async import(input: { planId?: string; text: string; broadcast?: boolean }, scope: TreasuryScope, actor: Actor): Promise<PlanView> {
    const read = readSigned(input.text);
    const planId = input.planId ?? read.planId;
    if (!planId) throw treasuryErrors.treasury_signed_unreadable({ message: 'A bare signed transaction needs the plan id it is for.' });
    if (read.planId && read.planId !== planId) throw treasuryErrors.treasury_signed_other_plan({ details: { plan_id: read.planId } });
    const plan = await this.deps.treasuryPlans.requirePlan(planId, scope);
    if ((read.chain && read.chain !== plan.chain) || (read.network && read.network !== plan.network)) {
      throw treasuryErrors.treasury_signed_other_plan({ details: { chain: read.chain, network: read.network } });
    }
    const digest = createHash('sha256').update(read.signed).digest('hex');
    if (plan.signed_digest === digest) return this.view(plan);
    try {
      if (plan.status !== 'awaiting_signature') {
        throw plan.signed_digest
          ? treasuryErrors.treasury_plan_already_signed({ details: { status: plan.status } })
          : treasuryErrors.treasury_plan_not_signable({ details: { status: plan.status } });
      }
      const target = this.deps.treasuryNetworks.get(plan.chain, plan.network);
      const unsigned = await storedTransaction(this.deps.db, this.deps.treasurySources, plan);
      const verified = target.treasury.verifySigned(unsigned, read.signed);
      if (verified.txid !== plan.txid) {
        throw treasuryErrors.treasury_signed_mismatch({ message: `The signed transaction has the id ${verified.txid}, the plan ${plan.txid}.` });
      }
      return await this.deps.db.transaction(async (trx) => {
        const locked = await Plan.query(trx).findById(planId).forUpdate();
        // A concurrent import of the same text got here first: answer as it did.
        if (locked!.signed_digest === digest) return this.view(locked!, trx);
        if (locked!.status !== 'awaiting_signature') throw treasuryErrors.treasury_plan_already_signed({ details: { status: locked!.status } });
        const now = new Date();
        const updated = await Plan.query(trx).patchAndFetchById(planId, {
          status: 'signed',
          signed_hex: verified.hex,
          signed_digest: digest,
          signed_at: now,
          updated_at: now,
        });
        await this.deps.audit.record({ ...actor, action: 'treasury.plan.sign', target: `treasury_plan:${planId}`, details: { txid: verified.txid } }, trx);
        await this.deps.treasuryPlanStatus.changed(trx, planId, 'awaiting_signature');
        if (input.broadcast) await this.deps.jobs.sendInTransaction(trx, BROADCAST_JOB, { planId });
        return this.view(updated, trx);
      });
    } catch (error) {
      if (error instanceof AppError) {
        await this.deps.audit.record({
          ...actor,
          action: 'treasury.plan.sign_refused',
          target: `treasury_plan:${planId}`,
          details: { error_code: error.code },
        });
      }
      throw error;
    }
  }

  private async view(plan: Plan, db: Knex | Knex.Transaction = this.deps.db): Promise<PlanView> {
    return planView(plan, await PlanInput.query(db).where('plan_id', plan.id).orderBy('id'));
  }
}

function readSigned(text: string): ReadSigned {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw treasuryErrors.treasury_signed_unreadable({ message: 'The signed file is not valid JSON.', cause: error });
    }
    const file = parsed as Record<string, unknown>;
    if (file['format'] !== 'gateway-treasury-signed' || file['version'] !== 1 || typeof file['signed'] !== 'string' || typeof file['plan_id'] !== 'string') {
      throw treasuryErrors.treasury_signed_unreadable({ message: 'Not a gateway-treasury-signed file (format, version 1, plan_id, signed).' });
    }
    return {
      planId: file['plan_id'],
      chain: typeof file['chain'] === 'string' ? file['chain'] : undefined,
      network: typeof file['network'] === 'string' ? file['network'] : undefined,
      signed: file['signed'].trim(),
    };
  }
  if (trimmed.length === 0) throw treasuryErrors.treasury_signed_unreadable({ message: 'The signed file is empty.' });
  return { planId: undefined, chain: undefined, network: undefined, signed: trimmed };
}

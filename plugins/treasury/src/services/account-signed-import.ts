import { createHash } from 'node:crypto';
import { type AccountPlanBuild, type Actor, AppError, type AuditLog, type JobQueue, type VerifiedStep } from '@gw/kernel';
import type { Knex } from 'knex';
import { raw } from 'objection';
import type { AccountPlanView } from '../account-plan-view.js';
import { treasuryErrors } from '../errors.js';
import { Plan } from '../models/plan.js';
import { PlanStep, stepOf, stepRow } from '../models/plan-step.js';
import { ACCOUNT_BROADCAST_JOB } from '../plan-status.js';
import type { AccountNetwork, AccountNetworks } from './account-networks.js';
import type { AccountPlans } from './account-plans.js';
import type { HotGasWallet } from './hot-gas-wallet.js';
import type { PlanStatusChanges } from './plan-status-change.js';
import type { TreasuryScope } from './treasury-scope.js';

interface ReadSignedFile {
  readonly planId: string;
  readonly chain: string;
  readonly network: string;
  readonly round: number;
  readonly signed: ReadonlyMap<string, string>;
}

/**
 * Takes a round's signatures back (issue 36): an `AccountSignedFile`. Every step of the round that
 * awaits an offline signature must be in it, and each is checked by the chain's treasury to be
 * exactly its step signed by the step's key before anything is stored. Then the operator's hot gas
 * wallet, when configured, signs the round's gas-address steps (top-ups); a completed round 1 of a
 * two-round plan gets its round 2 built by the treasury from the verified signatures (the gas
 * address's submission of the authorizations), which the hot gas wallet signs or which awaits a
 * second offline sitting. A second import of the same file answers as the first did.
 */
export class AccountSignedImport {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      jobs: JobQueue;
      treasuryAccountNetworks: AccountNetworks;
      treasuryAccountPlans: AccountPlans;
      treasuryHotGasWallet: HotGasWallet;
      treasuryPlanStatus: PlanStatusChanges;
    },
  ) {}

  async import(input: { planId?: string; text: string; broadcast?: boolean }, scope: TreasuryScope, actor: Actor): Promise<AccountPlanView> {
    const read = readSignedFile(input.text);
    if (input.planId && read.planId !== input.planId) throw treasuryErrors.treasury_signed_other_plan({ details: { plan_id: read.planId } });
    const plan = await this.deps.treasuryAccountPlans.requirePlan(read.planId, scope);
    if (read.chain !== plan.chain || read.network !== plan.network) {
      throw treasuryErrors.treasury_signed_other_plan({ details: { chain: read.chain, network: read.network } });
    }
    try {
      const target = this.deps.treasuryAccountNetworks.get(plan.chain, plan.network);
      const steps = await PlanStep.query(this.deps.db).where({ plan_id: plan.id, round: read.round }).orderBy('id');
      // The same file again: every step it names already carries exactly that signature.
      const digests = new Map([...read.signed].map(([id, text]) => [id, digest(text)]));
      if (digests.size > 0 && [...digests].every(([id, d]) => steps.find((s) => s.step_id === id)?.signed_digest === d)) {
        return await this.deps.treasuryAccountPlans.view(plan);
      }
      if (plan.status !== 'awaiting_signature') throw treasuryErrors.treasury_plan_not_signable({ details: { status: plan.status } });
      if (read.round !== plan.round) {
        throw treasuryErrors.treasury_plan_not_signable({
          message: `The plan awaits the signatures of round ${plan.round}; the file is of round ${read.round}.`,
          details: { status: plan.status, round: plan.round },
        });
      }
      const offline = steps.filter((s) => s.status === 'awaiting_signature' && !this.deps.treasuryHotGasWallet.signs(target, plan, s));
      for (const id of read.signed.keys()) {
        if (!offline.some((s) => s.step_id === id)) {
          throw treasuryErrors.treasury_signed_mismatch({
            message: `The plan has no step ${id} awaiting an offline signature in round ${plan.round}.`,
            details: { step_id: id },
          });
        }
      }
      const verified = new Map<string, VerifiedStep>();
      for (const step of offline) {
        const signed = read.signed.get(step.step_id);
        if (signed === undefined) {
          throw treasuryErrors.treasury_signed_incomplete({
            message: `The file lacks the signature of step ${step.step_id}. Nothing was stored.`,
            details: { step_id: step.step_id },
          });
        }
        verified.set(step.step_id, checked(target, step, signed));
      }
      return await this.deps.db.transaction(async (trx) => {
        const locked = await Plan.query(trx).findById(plan.id).forUpdate();
        if (locked!.status !== 'awaiting_signature' || locked!.round !== read.round) {
          throw treasuryErrors.treasury_plan_already_signed({ details: { status: locked!.status } });
        }
        for (const step of offline) await storeSigned(trx, step, verified.get(step.step_id)!, read.signed.get(step.step_id)!, 'offline');
        await this.signHot(trx, target, locked!, read.round);
        let round = read.round;
        let complete = true;
        if (read.round === 1 && locked!.rounds === 2) {
          const roundOne = await PlanStep.query(trx).where({ plan_id: plan.id, round: 1 }).orderBy('id');
          const next = target.treasury.continue(buildOf(locked!, roundOne), roundOne.map(verifiedOf));
          if (next.length > 0) {
            await PlanStep.query(trx).insert(next.map((s) => stepRow(plan.id, s)) as Partial<PlanStep>[]);
            await Plan.query(trx).patch({ round: 2, updated_at: new Date() }).where('id', plan.id);
            round = 2;
            await this.signHot(trx, target, { ...locked!, round: 2 } as Plan, 2);
            complete = (await PlanStep.query(trx).where({ plan_id: plan.id, status: 'awaiting_signature' }).resultSize()) === 0;
          }
        }
        const now = new Date();
        const updated = await Plan.query(trx).patchAndFetchById(plan.id, {
          ...(complete ? { status: 'signed', signed_at: now } : {}),
          updated_at: now,
        });
        await this.deps.audit.record(
          {
            ...actor,
            action: complete ? 'treasury.plan.sign' : 'treasury.plan.sign_round',
            target: `treasury_plan:${plan.id}`,
            details: { round: read.round, steps: offline.length, ...(complete ? {} : { awaiting_round: round }) },
          },
          trx,
        );
        if (complete) await this.deps.treasuryPlanStatus.changed(trx, plan.id, 'awaiting_signature');
        if (complete && input.broadcast) await this.deps.jobs.sendInTransaction(trx, ACCOUNT_BROADCAST_JOB, { planId: plan.id });
        return this.deps.treasuryAccountPlans.view(updated, trx);
      });
    } catch (error) {
      if (error instanceof AppError) {
        await this.deps.audit.record({
          ...actor,
          action: 'treasury.plan.sign_refused',
          target: `treasury_plan:${plan.id}`,
          details: { error_code: error.code, round: read.round },
        });
      }
      throw error;
    }
  }

  /** The hot gas wallet signs the round's gas-address steps (each verified like any signed step). */
  private async signHot(trx: Knex.Transaction, target: AccountNetwork, plan: Plan, round: number): Promise<void> {
    if (!this.deps.treasuryHotGasWallet.configured(target)) return;
    const steps = await PlanStep.query(trx).where({ plan_id: plan.id, round, status: 'awaiting_signature' }).orderBy('id');
    for (const step of steps) {
      if (!this.deps.treasuryHotGasWallet.signs(target, plan, step)) continue;
      const { signed, spendUnits } = await this.deps.treasuryHotGasWallet.sign(trx, target, plan.id, step.step_id);
      await storeSigned(trx, step, checked(target, step, signed), signed, 'hot_gas_wallet', spendUnits);
    }
  }
}

function checked(target: AccountNetwork, step: PlanStep, signed: string): VerifiedStep {
  const verified = target.treasury.verifySigned(stepOf(step), signed);
  if (verified.stepId !== step.step_id || verified.kind !== step.kind) {
    throw treasuryErrors.treasury_signed_mismatch({
      message: `The signature given for step ${step.step_id} is not of that step.`,
      details: { step_id: step.step_id },
    });
  }
  return verified;
}

async function storeSigned(
  trx: Knex.Transaction,
  step: PlanStep,
  verified: VerifiedStep,
  text: string,
  by: 'offline' | 'hot_gas_wallet',
  spendUnits?: bigint,
): Promise<void> {
  await PlanStep.query(trx)
    .patch({
      status: 'signed',
      signed: verified.kind === 'transaction' ? verified.tx.hex : verified.signature,
      signed_digest: digest(text),
      signed_by: by,
      txid: verified.kind === 'transaction' ? verified.tx.txid : null,
      ...(spendUnits !== undefined ? { hot_spend_units: spendUnits } : {}),
      // The database's clock, as the hot gas wallet's daily cap compares with now().
      signed_at: raw('now()') as unknown as Date,
    })
    .where('id', step.id);
}

/** The stored signature of a signed step as the treasury's `continue` reads it. */
function verifiedOf(step: PlanStep): VerifiedStep {
  return step.kind === 'transaction'
    ? { kind: 'transaction', stepId: step.step_id, tx: { txid: step.txid!, hex: step.signed! } }
    : { kind: 'authorization', stepId: step.step_id, signature: step.signed! };
}

/** The build a stored plan was, as `continue` takes it back. */
function buildOf(plan: Plan, steps: readonly PlanStep[]): AccountPlanBuild {
  return {
    method: plan.method as AccountPlanBuild['method'],
    coin: plan.coin,
    destination: plan.destination,
    steps: steps.map(stepOf),
    rounds: plan.rounds as 1 | 2,
    movedUnits: plan.value_units,
    feeUnits: plan.fee_units ?? 0n,
    operatorPaysUnits: plan.operator_pays_units ?? 0n,
    skipped: (plan.skipped as unknown as { address: string; units: string; cost_units: string }[]).map((s) => ({
      address: s.address,
      units: BigInt(s.units),
      costUnits: BigInt(s.cost_units),
    })),
    context: plan.context ?? {},
  };
}

function digest(text: string): string {
  return createHash('sha256').update(text.trim()).digest('hex');
}

function readSignedFile(text: string): ReadSignedFile {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.trim());
  } catch (error) {
    throw treasuryErrors.treasury_signed_unreadable({ message: 'The signed file is not valid JSON.', cause: error });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw treasuryErrors.treasury_signed_unreadable({ message: 'The signed file is JSON but not an object.' });
  }
  const file = parsed as Record<string, unknown>;
  const signed = file['signed'];
  if (
    file['format'] !== 'gateway-treasury-account-signed' ||
    file['version'] !== 1 ||
    typeof file['plan_id'] !== 'string' ||
    typeof file['chain'] !== 'string' ||
    typeof file['network'] !== 'string' ||
    (file['round'] !== 1 && file['round'] !== 2) ||
    !Array.isArray(signed) ||
    !signed.every((s) => typeof s === 'object' && s !== null && typeof s.id === 'string' && typeof s.signed === 'string')
  ) {
    throw treasuryErrors.treasury_signed_unreadable({
      message: 'Not a gateway-treasury-account-signed file (format, version 1, plan_id, chain, network, round, signed[{id, signed}]).',
    });
  }
  const map = new Map<string, string>();
  for (const s of signed as { id: string; signed: string }[]) {
    if (map.has(s.id)) throw treasuryErrors.treasury_signed_unreadable({ message: `The step ${s.id} is signed twice in the file.` });
    map.set(s.id, s.signed.trim());
  }
  return { planId: file['plan_id'], chain: file['chain'], network: file['network'], round: file['round'] as number, signed: map };
}

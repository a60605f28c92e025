import type { UnsignedFormat, UnsignedTransaction } from '@gw/kernel';
import type { Plan } from '../models/plan.js';
import { PlanInput } from '../models/plan-input.js';
import type { Knex } from 'knex';
import type { SpendSources } from './spend-sources.js';
import { inputAsOutput } from './treasury-plans.js';

/**
 * The unsigned transaction of a built plan, as `ChainTreasury.verifySigned` takes it: the stored
 * transaction and summary, with each input's key resolved again (keys are never stored twice).
 */
export async function storedTransaction(db: Knex | Knex.Transaction, sources: SpendSources, plan: Plan): Promise<UnsignedTransaction> {
  const rows = await PlanInput.query(db).where('plan_id', plan.id).orderBy('id');
  const sourced = await sources.resolve(plan.chain, rows.map(inputAsOutput));
  const file = plan.plan_file!;
  return {
    format: plan.unsigned_format as UnsignedFormat,
    data: plan.unsigned_data!,
    txid: plan.txid!,
    size: plan.size ?? 0,
    feeUnits: plan.fee_units!,
    inputs: sourced.map((s) => s.input),
    outputs: file.outputs.map((o) => {
      if (o.destination.kind === 'external') return { address: o.address, amountUnits: BigInt(o.amount_units) };
      const [branch, index] = o.destination.path.split('/').slice(-2).map(Number);
      return { address: o.address, amountUnits: BigInt(o.amount_units), own: { branch: branch === 1 ? 1 : 0, index: index! } };
    }),
  };
}

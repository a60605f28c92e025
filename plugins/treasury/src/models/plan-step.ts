import { type AccountKey, type AccountStep, type AccountUnsignedFormat, type OperatorAccount, UnitsModel } from '@gw/kernel';

export type StepStatus = 'awaiting_signature' | 'signed' | 'broadcast' | 'confirmed' | 'failed';

/** One step of an account-chain plan (migrations/0002): what a key signs, from unsigned to confirmed. */
export class PlanStep extends UnitsModel {
  static override tableName = 'treasury_plan_steps';
  static override unitsColumns = ['nonce', 'fee_units', 'hot_spend_units'];
  id!: string;
  plan_id!: string;
  step_id!: string;
  round!: 1 | 2;
  stage!: number;
  kind!: 'transaction' | 'authorization';
  description!: string;
  signer_kind!: 'deposit' | 'operator';
  signer_address!: string;
  signer_role!: OperatorAccount['role'] | null;
  signer_path!: string;
  signer_key!: AccountKey | null;
  signer_index!: number | null;
  unsigned_format!: AccountUnsignedFormat;
  unsigned_data!: string;
  nonce!: bigint | null;
  moves!: Record<string, string>;
  fee_units!: bigint;
  /** Hot gas wallet steps: the most it may spend (value + gas limit × max fee), decoded from the transaction it signed. */
  hot_spend_units!: bigint | null;
  to_address!: string;
  signed!: string | null;
  signed_digest!: string | null;
  signed_by!: 'offline' | 'hot_gas_wallet' | null;
  txid!: string | null;
  status!: StepStatus;
  confirmations!: number;
  block_height!: number | null;
  failure!: string | null;
  signed_at!: Date | null;
  broadcast_at!: Date | null;
  confirmed_at!: Date | null;

  static override get jsonAttributes(): string[] {
    return ['signer_key', 'moves'];
  }
}

/** The row of a built step (before signature). */
export function stepRow(planId: string, step: AccountStep): Partial<PlanStep> {
  const signer = step.signer;
  return {
    plan_id: planId,
    step_id: step.id,
    round: step.round,
    stage: step.stage,
    kind: step.kind,
    description: step.description,
    signer_kind: signer.kind,
    signer_address: signer.kind === 'deposit' ? signer.address : signer.account.address,
    signer_role: signer.kind === 'operator' ? signer.account.role : null,
    signer_path: signer.kind === 'deposit' ? signer.path : signer.account.path,
    signer_key: signer.kind === 'deposit' ? signer.key : null,
    signer_index: signer.kind === 'deposit' ? signer.index : null,
    unsigned_format: step.unsigned.format,
    unsigned_data: step.unsigned.data,
    nonce: step.nonce,
    moves: Object.fromEntries(Object.entries(step.moves).map(([coin, units]) => [coin, units.toString()])),
    fee_units: step.feeUnits,
    to_address: step.to,
    status: 'awaiting_signature',
  };
}

/** The step a stored row is, as the chain's treasury reads it (verifySigned, checkFresh, continue). */
export function stepOf(row: PlanStep): AccountStep {
  return {
    id: row.step_id,
    round: row.round,
    stage: row.stage,
    description: row.description,
    signer:
      row.signer_kind === 'deposit'
        ? { kind: 'deposit', address: row.signer_address, key: row.signer_key!, index: row.signer_index!, path: row.signer_path }
        : { kind: 'operator', account: { role: row.signer_role!, address: row.signer_address, path: row.signer_path } },
    kind: row.kind,
    unsigned: { format: row.unsigned_format, data: row.unsigned_data },
    nonce: row.nonce,
    moves: Object.fromEntries(Object.entries(row.moves).map(([coin, units]) => [coin, BigInt(units)])),
    feeUnits: row.fee_units,
    to: row.to_address,
  };
}

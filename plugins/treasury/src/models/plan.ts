import { type ChainId, type PlanFile, UnitsModel } from '@gw/kernel';
import type { PlanKind, PlanStatus } from '../plan-status.js';

/** An outpoint a plan chose not to spend: worth less than spending it costs at the plan's rate. */
export interface SkippedOutput {
  readonly tx_hash: string;
  readonly output_index: number;
  readonly address: string;
  readonly amount_units: string;
}

/** One plan (migrations/0001_treasury.ts). */
export class Plan extends UnitsModel {
  static override tableName = 'treasury_plans';
  static override unitsColumns = ['fee_rate', 'fee_units', 'value_units', 'max_fee_rate', 'operator_pays_units'];
  id!: string;
  chain!: ChainId;
  network!: string;
  coin!: string;
  kind!: PlanKind;
  status!: PlanStatus;
  operator_id!: string | null;
  destination!: string;
  destination_kind!: 'own' | 'external';
  destination_wallet_id!: string | null;
  destination_index!: number | null;
  fee_rate!: bigint | null;
  fee_units!: bigint | null;
  value_units!: bigint;
  max_fee_rate!: bigint | null;
  size!: number | null;
  unsigned_format!: string | null;
  unsigned_data!: string | null;
  txid!: string | null;
  plan_file!: PlanFile | null;
  skipped!: SkippedOutput[];
  signed_digest!: string | null;
  signed_hex!: string | null;
  replaces_plan_id!: string | null;
  parent_txid!: string | null;
  created_by!: string;
  confirmations!: number;
  block_height!: number | null;
  block_hash!: string | null;
  failure!: string | null;
  created_at!: Date;
  updated_at!: Date;
  signed_at!: Date | null;
  broadcast_at!: Date | null;
  confirmed_at!: Date | null;
  /** Account chains (migrations/0002): null on UTXO plans. */
  method!: string | null;
  round!: number | null;
  rounds!: number | null;
  stage!: number | null;
  context!: Record<string, string | number | boolean> | null;
  operator_pays_units!: bigint | null;

  static override get jsonAttributes(): string[] {
    return ['plan_file', 'skipped', 'context'];
  }
}

/** One recipient of a payout plan as its `context.recipients` carries it (JSON text, decimal units). */
export interface StoredRecipient {
  readonly reference: string;
  readonly address: string;
  readonly units: string;
}

/** The recipients a payout plan's context carries, in plan order; [] for any other plan. */
export function recipientsOf(plan: Pick<Plan, 'context'>): StoredRecipient[] {
  const text = plan.context?.['recipients'];
  if (typeof text !== 'string') return [];
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? (parsed as StoredRecipient[]) : [];
}

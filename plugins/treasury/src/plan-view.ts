import { type PlanFile, isoTime, isoTimeOrNull } from '@gw/kernel';
import { type Plan, recipientsOf, type SkippedOutput, type StoredRecipient } from './models/plan.js';
import type { PlanInput } from './models/plan-input.js';
import type { PlanKind, PlanStatus } from './plan-status.js';

/** A plan as the API, the CLI and the dashboard show it: amounts in base units as decimal strings. */
export interface PlanView {
  readonly id: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly kind: PlanKind;
  readonly status: PlanStatus;
  readonly destination: string;
  readonly destination_kind: 'own' | 'external';
  /** Sum of the inputs. */
  readonly value_units: string;
  readonly fee_units: string | null;
  readonly fee_rate: string | null;
  /** The fee as a share of the value, in percent with two decimals ("0.42"). */
  readonly fee_percent: string | null;
  /** What the destination receives (value minus fee). */
  readonly send_units: string | null;
  readonly max_fee_rate: string | null;
  readonly size: number | null;
  readonly txid: string | null;
  readonly replaces_plan_id: string | null;
  readonly parent_txid: string | null;
  readonly confirmations: number;
  readonly block_height: number | null;
  readonly failure: string | null;
  readonly created_by: string;
  readonly inputs: readonly PlanInputView[];
  /** Outputs of the selection not worth moving at the fee rate (left where they are). */
  readonly skipped: readonly SkippedOutput[];
  readonly created_at_iso: string;
  readonly signed_at_iso: string | null;
  readonly broadcast_at_iso: string | null;
  readonly confirmed_at_iso: string | null;
  /** The file to sign; null while the plan waits for its fee. */
  readonly plan_file: PlanFile | null;
  /** Kind `payout`: whom it pays (each reference a refund or payout id), in output order; the change goes to `destination`. Empty otherwise. */
  readonly recipients: readonly StoredRecipient[];
}

export interface PlanInputView {
  readonly tx_hash: string;
  readonly output_index: number;
  readonly address: string;
  readonly amount_units: string;
  readonly project_id: string;
  readonly invoice_id: string | null;
}

/** A plan's moments at the edge (ISO 8601), either kind of plan. */
export function planTimes(plan: Plan): Pick<PlanView, 'created_at_iso' | 'signed_at_iso' | 'broadcast_at_iso' | 'confirmed_at_iso'> {
  return {
    created_at_iso: isoTime(plan.created_at),
    signed_at_iso: isoTimeOrNull(plan.signed_at),
    broadcast_at_iso: isoTimeOrNull(plan.broadcast_at),
    confirmed_at_iso: isoTimeOrNull(plan.confirmed_at),
  };
}

export function planView(plan: Plan, inputs: readonly PlanInput[]): PlanView {
  return {
    id: plan.id,
    chain: plan.chain,
    network: plan.network,
    coin: plan.coin,
    kind: plan.kind,
    status: plan.status,
    destination: plan.destination,
    destination_kind: plan.destination_kind,
    value_units: plan.value_units.toString(),
    fee_units: plan.fee_units?.toString() ?? null,
    fee_rate: plan.fee_rate?.toString() ?? null,
    fee_percent: plan.fee_units !== null ? percent(plan.fee_units, plan.value_units) : null,
    send_units: plan.fee_units !== null ? (plan.value_units - plan.fee_units).toString() : null,
    max_fee_rate: plan.max_fee_rate?.toString() ?? null,
    size: plan.size,
    txid: plan.txid,
    replaces_plan_id: plan.replaces_plan_id,
    parent_txid: plan.parent_txid,
    confirmations: plan.confirmations,
    block_height: plan.block_height,
    failure: plan.failure,
    created_by: plan.created_by,
    inputs: inputs.map((i) => ({
      tx_hash: i.tx_hash,
      output_index: i.output_index,
      address: i.address,
      amount_units: i.amount_units.toString(),
      project_id: i.project_id,
      invoice_id: i.invoice_id,
    })),
    skipped: plan.skipped,
    ...planTimes(plan),
    plan_file: plan.plan_file,
    recipients: recipientsOf(plan),
  };
}

/** `part` as a percentage of `whole` with two decimals, rounded down; exact (bigint). */
export function percent(part: bigint, whole: bigint): string {
  if (whole <= 0n) return '0.00';
  const hundredths = (part * 10_000n) / whole;
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}`;
}

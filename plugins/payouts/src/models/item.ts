import { type ProjectKind, UnitsModel } from '@gw/kernel';
import type { ItemKind, ItemStatus, RateRule } from '../item-status.js';

/** One refund or payout (migrations/0001_payouts.ts). */
export class Item extends UnitsModel {
  static override tableName = 'payouts_items';
  static override unitsColumns = ['amount_units', 'fee_units'];
  static override jsonAttributes = ['metadata'];
  id!: string;
  project_id!: string;
  project_kind!: ProjectKind;
  kind!: ItemKind;
  invoice_id!: string | null;
  chain!: string;
  network!: string;
  coin!: string;
  amount_units!: bigint;
  rate!: string | null;
  rate_rule!: RateRule | null;
  spread_percent!: string | null;
  address!: string | null;
  reference!: string | null;
  reason!: string | null;
  metadata!: Record<string, unknown> | null;
  status!: ItemStatus;
  claim_token_hash!: string | null;
  claim_token_sealed!: string | null;
  claim_requires_proof!: boolean;
  claim_email!: string | null;
  proof_message!: string | null;
  proof_signature!: string | null;
  plan_id!: string | null;
  txid!: string | null;
  fee_units!: bigint | null;
  failure_reason!: string | null;
  idempotency_key!: string | null;
  request_digest!: string | null;
  approvals_required!: number;
  created_by!: string;
  created_at!: Date;
  updated_at!: Date;
  claimed_at!: Date | null;
  approved_at!: Date | null;
  sent_at!: Date | null;
  completed_at!: Date | null;
}

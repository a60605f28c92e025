import { Model } from 'objection';

/** A project's approval policy; no row: one approval always, the configured claim-proof threshold. */
export class Policy extends Model {
  static override tableName = 'payouts_policies';
  static override idColumn = 'project_id';
  project_id!: string;
  dual_approval_above_usd!: string | null;
  claim_proof_above_usd!: string | null;
  updated_at!: Date;
}

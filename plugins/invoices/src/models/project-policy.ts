import type { ChainId, CoinId } from '@gw/kernel';
import { Model } from 'objection';
import type { MatchingMode } from '../config.js';

/** A project's invoice policy; null columns fall back to the deployment defaults. */
export class ProjectPolicy extends Model {
  static override tableName = 'invoices_project_policies';
  static override idColumn = 'project_id';
  static override jsonAttributes = ['confirmations'];
  project_id!: string;
  default_matching_mode!: MatchingMode | null;
  expiry_seconds!: number | null;
  confirmations!: Partial<Record<ChainId, number>>;
  enabled_coins!: CoinId[] | null;
  /** Share of an invoice's amount a payment may fall short by and still settle as paid; null: none. */
  underpayment_tolerance!: string | null;
  updated_at!: Date;
}

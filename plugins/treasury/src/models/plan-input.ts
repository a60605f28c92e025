import { type ChainId, UnitsModel } from '@gw/kernel';

/** An output a plan spends; `held` while the plan is open (the partial unique index refuses a second holder). */
export class PlanInput extends UnitsModel {
  static override tableName = 'treasury_plan_inputs';
  static override unitsColumns = ['amount_units'];
  id!: string;
  plan_id!: string;
  chain!: ChainId;
  network!: string;
  tx_hash!: string;
  output_index!: number;
  address!: string;
  amount_units!: bigint;
  project_id!: string;
  pool_address_id!: string;
  invoice_id!: string | null;
  held!: boolean;
}

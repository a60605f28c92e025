import { type ChainId, UnitsModel } from '@gw/kernel';

/**
 * A deposit address (and coin) an account-chain plan moves; `held` while the plan is open (the
 * partial unique index refuses a second open plan over it). Its project confines who sees the plan.
 */
export class PlanAddress extends UnitsModel {
  static override tableName = 'treasury_plan_addresses';
  static override unitsColumns = ['amount_units'];
  id!: string;
  plan_id!: string;
  chain!: ChainId;
  network!: string;
  coin!: string;
  address!: string;
  project_id!: string;
  pool_address_id!: string;
  amount_units!: bigint;
  held!: boolean;
}

import { withUnitsColumns, type ChainId } from '@gw/kernel';
import { Model, type Pojo } from 'objection';

/**
 * A deposit address (and coin) an account-chain plan moves; `held` while the plan is open (the
 * partial unique index refuses a second open plan over it). Its project confines who sees the plan.
 */
export class PlanAddress extends Model {
  static override tableName = 'treasury_plan_addresses';
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

  override $parseDatabaseJson(json: Pojo): Pojo {
    return withUnitsColumns(super.$parseDatabaseJson(json), ['amount_units']);
  }

  override $formatDatabaseJson(json: Pojo): Pojo {
    const out = super.$formatDatabaseJson(json);
    if (typeof out['amount_units'] === 'bigint') out['amount_units'] = out['amount_units'].toString();
    return out;
  }
}

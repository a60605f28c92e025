import { withUnitsColumns, type ChainId } from '@gw/kernel';
import { Model, type Pojo } from 'objection';

/** An output a plan spends; `held` while the plan is open (the partial unique index refuses a second holder). */
export class PlanInput extends Model {
  static override tableName = 'treasury_plan_inputs';
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

  override $parseDatabaseJson(json: Pojo): Pojo {
    return withUnitsColumns(super.$parseDatabaseJson(json), ['amount_units']);
  }

  override $formatDatabaseJson(json: Pojo): Pojo {
    const out = super.$formatDatabaseJson(json);
    if (typeof out['amount_units'] === 'bigint') out['amount_units'] = out['amount_units'].toString();
    return out;
  }
}

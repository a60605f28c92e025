import { Model, type Pojo } from 'objection';
import { withUnitsColumns } from '@gw/chain-api';

/**
 * An Objection model of a table with base-units columns (`numeric` in the database): each model
 * names them in `unitsColumns`; they are read as bigint and written as decimal text.
 */
export abstract class UnitsModel extends Model {
  static unitsColumns: readonly string[] = [];

  override $parseDatabaseJson(json: Pojo): Pojo {
    return withUnitsColumns(super.$parseDatabaseJson(json), (this.constructor as typeof UnitsModel).unitsColumns);
  }

  override $formatDatabaseJson(json: Pojo): Pojo {
    const out = super.$formatDatabaseJson(json);
    for (const column of (this.constructor as typeof UnitsModel).unitsColumns) if (typeof out[column] === 'bigint') out[column] = out[column].toString();
    return out;
  }
}

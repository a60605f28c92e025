import { Model } from 'objection';

/** One administrator's approval of an item; the primary key (item, user) refuses a second one. */
export class Approval extends Model {
  static override tableName = 'payouts_approvals';
  static override idColumn = ['item_id', 'user_id'];
  item_id!: string;
  /** A tenancy user id, or `cli` for the operator CLI. */
  user_id!: string;
  created_at!: Date;
}

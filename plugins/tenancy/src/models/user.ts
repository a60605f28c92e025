import { Model } from 'objection';

export class User extends Model {
  static override tableName = 'tenancy_users';
  id!: string;
  operator_id!: string;
  email!: string;
  status!: 'invited' | 'active' | 'disabled';
  invited_at!: Date;
}

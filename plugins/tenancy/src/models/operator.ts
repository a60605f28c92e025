import { Model } from 'objection';

export class Operator extends Model {
  static override tableName = 'tenancy_operators';
  id!: string;
  name!: string;
  subscription_status!: 'active' | 'expired';
  created_at!: Date;
  updated_at!: Date;
}

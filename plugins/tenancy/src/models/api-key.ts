import { Model } from 'objection';

export class ApiKey extends Model {
  static override tableName = 'tenancy_api_keys';
  id!: string;
  project_id!: string;
  secret_kind!: 'production' | 'sandbox';
  state!: 'active' | 'suspended' | 'revoked';
  created_at!: Date;
  state_changed_at!: Date | null;
}

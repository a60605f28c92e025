import { Model } from 'objection';

export class ApiKeySecret extends Model {
  static override tableName = 'tenancy_api_key_secrets';
  id!: string;
  api_key_id!: string;
  sealed_secret!: string;
  created_at!: Date;
  expires_at!: Date | null;
}

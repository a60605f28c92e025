import { Model } from 'objection';

export class PersonalAccessToken extends Model {
  static override tableName = 'tenancy_personal_access_tokens';
  id!: string;
  operator_id!: string;
  project_id!: string | null;
  user_id!: string | null;
  name!: string;
  scopes!: string[];
  token_hash!: string;
  created_at!: Date;
  expires_at!: Date | null;
  revoked_at!: Date | null;
  last_used_at!: Date | null;
}

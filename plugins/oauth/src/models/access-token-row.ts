import { Model } from 'objection';

/** `oauth_access_tokens`: `svc_oat_` tokens (hash only) with the resource they were issued for. */
export interface AccessTokenRow {
  id: string;
  grant_id: string;
  refresh_token_id: string | null;
  token_hash: string;
  client_id: string;
  user_id: string;
  scopes: string[];
  resource: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** The Objection model of `oauth_access_tokens` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class AccessToken extends Model implements AccessTokenRow {
  static override tableName = 'oauth_access_tokens';
  declare id: string;
  declare grant_id: string;
  declare refresh_token_id: string | null;
  declare token_hash: string;
  declare client_id: string;
  declare user_id: string;
  declare scopes: string[];
  declare resource: string;
  declare created_at: Date;
  declare expires_at: Date;
  declare revoked_at: Date | null;
}

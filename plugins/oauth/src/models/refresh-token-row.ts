import { Model } from 'objection';

/** `oauth_refresh_tokens`: `svc_ort_` tokens (hash only); consumed at rotation. */
export interface RefreshTokenRow {
  id: string;
  grant_id: string;
  parent_id: string | null;
  token_hash: string;
  client_id: string;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
  successor_id: string | null;
  sealed_successor: string | null;
  revoked_at: Date | null;
}

/** The Objection model of `oauth_refresh_tokens` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class RefreshToken extends Model implements RefreshTokenRow {
  static override tableName = 'oauth_refresh_tokens';
  declare id: string;
  declare grant_id: string;
  declare parent_id: string | null;
  declare token_hash: string;
  declare client_id: string;
  declare created_at: Date;
  declare expires_at: Date;
  declare consumed_at: Date | null;
  declare successor_id: string | null;
  declare sealed_successor: string | null;
  declare revoked_at: Date | null;
}

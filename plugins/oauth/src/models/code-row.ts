import { Model } from 'objection';

/** `oauth_codes`: a single-use authorization code (`oac_`), only its hash. */
export interface CodeRow {
  id: string;
  code_hash: string;
  client_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string[];
  resource: string;
  code_challenge: string;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
  grant_id: string | null;
}

/** The Objection model of `oauth_codes` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class Code extends Model implements CodeRow {
  static override tableName = 'oauth_codes';
  declare id: string;
  declare code_hash: string;
  declare client_id: string;
  declare user_id: string;
  declare redirect_uri: string;
  declare scopes: string[];
  declare resource: string;
  declare code_challenge: string;
  declare created_at: Date;
  declare expires_at: Date;
  declare consumed_at: Date | null;
  declare grant_id: string | null;
}

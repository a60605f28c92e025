import { Model } from 'objection';

/** `oauth_grants`: one lineage, every token descended from one code exchange. */
export interface GrantRow {
  id: string;
  user_id: string;
  client_id: string;
  scopes: string[];
  resource: string;
  code_id: string;
  created_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
}

/** The Objection model of `oauth_grants` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class Grant extends Model implements GrantRow {
  static override tableName = 'oauth_grants';
  declare id: string;
  declare user_id: string;
  declare client_id: string;
  declare scopes: string[];
  declare resource: string;
  declare code_id: string;
  declare created_at: Date;
  declare revoked_at: Date | null;
  declare revoked_reason: string | null;
}

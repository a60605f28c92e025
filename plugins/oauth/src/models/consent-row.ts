import { Model } from 'objection';

/** `oauth_consents`: one per (user, client); revoked by the connected-apps revoke. */
export interface ConsentRow {
  user_id: string;
  client_id: string;
  scopes: string[];
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
}

/** The Objection model of `oauth_consents` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class Consent extends Model implements ConsentRow {
  static override tableName = 'oauth_consents';
  static override idColumn = ['user_id', 'client_id'];
  declare user_id: string;
  declare client_id: string;
  declare scopes: string[];
  declare created_at: Date;
  declare updated_at: Date;
  declare revoked_at: Date | null;
}

import { Model } from 'objection';

/** `oauth_authorization_requests`: a validated /oauth/authorize request waiting for sign-in and consent. */
export interface AuthorizationRequestRow {
  id: string;
  session_id: string;
  client_id: string;
  redirect_uri: string;
  scopes: string[];
  state: string | null;
  code_challenge: string;
  resource: string;
  created_at: Date;
  expires_at: Date;
  completed_at: Date | null;
}

/** The Objection model of `oauth_authorization_requests` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class AuthorizationRequest extends Model implements AuthorizationRequestRow {
  static override tableName = 'oauth_authorization_requests';
  declare id: string;
  declare session_id: string;
  declare client_id: string;
  declare redirect_uri: string;
  declare scopes: string[];
  declare state: string | null;
  declare code_challenge: string;
  declare resource: string;
  declare created_at: Date;
  declare expires_at: Date;
  declare completed_at: Date | null;
}

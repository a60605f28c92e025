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

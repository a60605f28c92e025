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

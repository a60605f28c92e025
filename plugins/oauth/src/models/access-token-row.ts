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

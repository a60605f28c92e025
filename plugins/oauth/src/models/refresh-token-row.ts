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

/** `oauth_consents`: one per (user, client); revoked by the connected-apps revoke. */
export interface ConsentRow {
  user_id: string;
  client_id: string;
  scopes: string[];
  created_at: Date;
  updated_at: Date;
  revoked_at: Date | null;
}

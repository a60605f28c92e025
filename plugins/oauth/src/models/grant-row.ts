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

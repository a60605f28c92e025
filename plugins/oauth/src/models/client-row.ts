/** `oauth_clients`: a registered client or a cached client metadata document. */
export interface ClientRow {
  client_id: string;
  kind: 'dynamic' | 'document';
  client_name: string | null;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post';
  secret_hash: string | null;
  registered_ip: string | null;
  created_at: Date;
  document_fetched_at: Date | null;
  document_expires_at: Date | null;
}

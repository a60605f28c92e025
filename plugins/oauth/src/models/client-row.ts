import { Model } from 'objection';

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

/** The Objection model of `oauth_clients` (ordinary reads and writes by key; see docs/architecture.md, data access rule). */
export class Client extends Model implements ClientRow {
  static override tableName = 'oauth_clients';
  static override idColumn = 'client_id';
  declare client_id: string;
  declare kind: 'dynamic' | 'document';
  declare client_name: string | null;
  declare redirect_uris: string[];
  declare grant_types: string[];
  declare response_types: string[];
  declare token_endpoint_auth_method: 'none' | 'client_secret_post';
  declare secret_hash: string | null;
  declare registered_ip: string | null;
  declare created_at: Date;
  declare document_fetched_at: Date | null;
  declare document_expires_at: Date | null;
}

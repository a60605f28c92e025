import { timingSafeEqual } from 'node:crypto';
import { type AuditLog, hashToken, isUlid, newId, randomBase62, type RateLimiter, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { OAuthConfig } from '../config.js';
import { Client, type ClientRow } from '../models/client-row.js';
import { fail, type OAuthFailure } from '../oauth-result.js';
import { ClientDocumentError, type ClientDocumentFetcher, type FetchedDocument } from './client-document-fetcher.js';
import { MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uri.js';

/** What a registration answers (RFC 7591 section 3.2.1, spec 2.7). */
/** What a caller learns about any refused client metadata document; the reason is logged. */
export const DOCUMENT_REFUSED =
  "The client metadata document at this client_id URL could not be fetched or is not valid; the gateway operator's log has the reason.";

export interface RegistrationResponse {
  client_id: string;
  client_id_issued_at: number;
  client_secret_expires_at: 0;
  client_secret?: string;
  client_name: string | null;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post';
}

const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const MAX_NAME = 200;
const MAX_CLIENT_ID_URL = 2048;

/** A client id that names a metadata document: an https URL (anything else is a registered ULID). */
export function isDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://');
}

/**
 * Why a metadata-document client id is not acceptable (draft-ietf-oauth-client-id-metadata-document):
 * https, a path other than `/`, no fragment, no credentials, no dot segments, written in normal form.
 */
export function documentUrlProblem(clientId: string): string | undefined {
  if (clientId.length > MAX_CLIENT_ID_URL) return `is longer than ${MAX_CLIENT_ID_URL} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.username || url.password) return 'must not embed credentials';
  if (clientId.includes('#')) return 'must not have a fragment';
  if (url.pathname === '/' || url.pathname === '') return 'must have a path';
  if (/\/\.\.?(\/|$|\?)/.test(clientId.replace(/^https:\/\/[^/]*/, ''))) return 'must not contain dot segments';
  if (url.href !== clientId) return 'must be written in normal form (lower-case host, no default port, escaped)';
  return undefined;
}

/**
 * Clients: RFC 7591 dynamic registration (10 per hour per source IP, counted in PostgreSQL) and
 * Client ID Metadata Documents (fetched with SSRF guards, cached in `oauth_clients` until
 * `document_expires_at`).
 */
export class ClientService {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      rateLimiter: RateLimiter;
      logger: Logger;
      oauthConfig: OAuthConfig;
      oauthDocumentFetcher: ClientDocumentFetcher;
    },
  ) {}

  /** RFC 7591 registration. The rate limit counts every request, valid or not. */
  async register(body: unknown, sourceIp: string, requestId: string): Promise<RegistrationResponse | OAuthFailure> {
    const limit = await this.deps.rateLimiter.hit({
      key: `oauth.register:ip:${sourceIp}`,
      limit: this.deps.oauthConfig.registrationsPerHourPerIp,
      windowSeconds: 3600,
    });
    if (!limit.allowed) {
      return {
        error: 'rate_limit_exceeded',
        description: `At most ${this.deps.oauthConfig.registrationsPerHourPerIp} registrations per hour from one address.`,
        status: 429,
        retryAfter: limit.retryAfter,
      };
    }
    const parsed = parseClientMetadata(body, { allowSecret: true });
    if ('error' in parsed) return parsed;
    const clientId = newId();
    const secret = parsed.token_endpoint_auth_method === 'client_secret_post' ? randomBase62(48) : undefined;
    const row = await this.deps.db.transaction(async (trx) => {
      const inserted = await Client.query(trx).insertAndFetch({
        client_id: clientId,
        kind: 'dynamic',
        client_name: parsed.client_name,
        redirect_uris: parsed.redirect_uris,
        grant_types: parsed.grant_types,
        response_types: parsed.response_types,
        token_endpoint_auth_method: parsed.token_endpoint_auth_method,
        secret_hash: secret ? hashToken(secret) : null,
        registered_ip: sourceIp,
      });
      await this.deps.audit.record(
        {
          actor: `oauth_client:${clientId}`,
          channel: 'rest',
          action: 'oauth.client.register',
          target: `oauth_client:${clientId}`,
          details: {
            client_name: parsed.client_name,
            redirect_uris: parsed.redirect_uris,
            token_endpoint_auth_method: parsed.token_endpoint_auth_method,
            source_ip: sourceIp,
          },
          requestId,
        },
        trx,
      );
      return inserted;
    });
    return {
      client_id: row.client_id,
      client_id_issued_at: Math.floor(new Date(row.created_at).getTime() / 1000),
      client_secret_expires_at: 0,
      ...(secret ? { client_secret: secret } : {}),
      client_name: row.client_name,
      redirect_uris: row.redirect_uris,
      grant_types: row.grant_types,
      response_types: row.response_types,
      token_endpoint_auth_method: row.token_endpoint_auth_method,
    };
  }

  /**
   * The client named by `clientId`: a registered one, or a metadata document (from the cache while
   * it is fresh, else fetched now). Unknown, malformed, unreachable or invalid: `invalid_client`.
   */
  async resolve(clientId: string | undefined): Promise<ClientRow | OAuthFailure> {
    if (!clientId) return fail('invalid_client', 'client_id is required.');
    if (isDocumentClientId(clientId)) return this.resolveDocument(clientId);
    if (!isUlid(clientId)) return fail('invalid_client', 'Unknown client_id.');
    const row = await Client.query(this.deps.db).findOne({ client_id: clientId, kind: 'dynamic' });
    return row ?? fail('invalid_client', 'Unknown client_id.');
  }

  /** A known client row without fetching anything (labels of pages; the row may be a stale document). */
  async find(clientId: string): Promise<ClientRow | undefined> {
    return Client.query(this.deps.db).findById(clientId);
  }

  /** Checks the client authentication of a token or revocation request (`none` or `client_secret_post`). */
  authenticate(client: ClientRow, secret: string | undefined): OAuthFailure | undefined {
    if (client.token_endpoint_auth_method === 'none') {
      return secret === undefined ? undefined : fail('invalid_client', 'This client is public (token_endpoint_auth_method none); it has no secret.');
    }
    if (secret === undefined || client.secret_hash === null) return fail('invalid_client', 'client_secret is required (client_secret_post).');
    const presented = Buffer.from(hashToken(secret), 'hex');
    const stored = Buffer.from(client.secret_hash, 'hex');
    return presented.length === stored.length && timingSafeEqual(presented, stored) ? undefined : fail('invalid_client', 'Client authentication failed.');
  }

  private async resolveDocument(clientId: string): Promise<ClientRow | OAuthFailure> {
    const problem = documentUrlProblem(clientId);
    if (problem) return fail('invalid_client', `The client_id URL ${problem}.`);
    const [cached] = await sqlQuery<ClientRow & { fresh: boolean }>(
      this.deps.db,
      sql`select *, coalesce(document_expires_at > now(), false) as fresh from oauth_clients where client_id = ${clientId}`,
    );
    if (cached && cached.kind !== 'document') return fail('invalid_client', 'Unknown client_id.');
    if (cached?.fresh) return cached;
    // Why a document was refused (its status, DNS, connection errors, timeouts, its content) goes to
    // the operator's log only: answering it would let anyone probe hosts and ports through the
    // gateway (issue 26 finding 8).
    const { clientDocuments } = this.deps.oauthConfig;
    const host = new URL(clientId).host;
    const logRefusal = (reason: string, error?: unknown) =>
      this.deps.logger.warn(
        { clientId, reason, ...(error && !(error instanceof ClientDocumentError) ? { err: error } : {}) },
        'client metadata document refused',
      );
    // A recent failure is answered from the negative cache: no fetch until its retry_at (issue 24).
    const [failed] = await sqlQuery<{ reason: string }>(
      this.deps.db,
      sql`select reason from oauth_client_document_failures where client_id = ${clientId} and retry_at > now()`,
    );
    if (failed) {
      logRefusal(`recently refused (${failed.reason}); not fetched again before the failure expires`);
      return fail('invalid_client', DOCUMENT_REFUSED);
    }
    // Fetches per source host are bounded in PostgreSQL (every instance counts into one window), so
    // the gateway cannot be made to hammer a host with many client_id URLs on it. A throttled
    // fetch falls back to the cached copy, however stale, and is not a failure of the document.
    const throttle = await this.deps.rateLimiter.hit({
      key: `oauth.document-fetch:host:${host}`,
      limit: clientDocuments.fetchesPerMinutePerHost,
      windowSeconds: 60,
    });
    if (!throttle.allowed) {
      if (cached) return cached;
      logRefusal(`too many document fetches from ${host}; try again in ${throttle.retryAfter} s`);
      return fail('invalid_client', DOCUMENT_REFUSED);
    }
    const refused = async (reason: string, error?: unknown): Promise<OAuthFailure> => {
      logRefusal(reason, error);
      await sqlQuery(
        this.deps.db,
        sql`insert into oauth_client_document_failures (client_id, host, reason, retry_at)
            values (${clientId}, ${host}, ${reason.slice(0, 500)}, now() + make_interval(secs => ${clientDocuments.failureTtlSeconds}))
            on conflict (client_id) do update set reason = excluded.reason, host = excluded.host, failures = oauth_client_document_failures.failures + 1,
              failed_at = now(), retry_at = excluded.retry_at`,
      );
      return fail('invalid_client', DOCUMENT_REFUSED);
    };
    let fetched: FetchedDocument;
    try {
      fetched = await this.deps.oauthDocumentFetcher.fetch(new URL(clientId));
    } catch (error) {
      return refused(error instanceof ClientDocumentError ? error.message : 'the document could not be fetched', error);
    }
    const { document } = fetched;
    if (typeof document !== 'object' || document === null || Array.isArray(document)) return refused('the document is not a JSON object');
    if ((document as Record<string, unknown>)['client_id'] !== clientId) return refused('the document names another client_id than its own URL');
    const parsed = parseClientMetadata(document, { allowSecret: false });
    if ('error' in parsed) return refused(`the document is invalid: ${parsed.description}`);
    // Cache-Control max-age (no-store and no-cache count as 0) within [minTtlSeconds, maxTtlSeconds];
    // without one, ttlSeconds.
    const ttl = documentTtl(fetched.maxAgeSeconds, clientDocuments);
    await sqlQuery(this.deps.db, sql`delete from oauth_client_document_failures where client_id = ${clientId}`);
    // An upsert with the expiry on the database's clock: one statement (data access rule 2).
    const [row] = await sqlQuery<ClientRow>(
      this.deps.db,
      sql`insert into oauth_clients (client_id, kind, client_name, redirect_uris, grant_types, response_types, token_endpoint_auth_method, secret_hash, document_fetched_at, document_expires_at)
          values (${clientId}, 'document', ${parsed.client_name}, ${parsed.redirect_uris}::text[], ${parsed.grant_types}::text[], ${parsed.response_types}::text[],
                  ${parsed.token_endpoint_auth_method}, null, now(), now() + make_interval(secs => ${ttl}))
          on conflict (client_id) do update set kind = excluded.kind, client_name = excluded.client_name, redirect_uris = excluded.redirect_uris,
            grant_types = excluded.grant_types, response_types = excluded.response_types, token_endpoint_auth_method = excluded.token_endpoint_auth_method,
            secret_hash = excluded.secret_hash, document_fetched_at = excluded.document_fetched_at, document_expires_at = excluded.document_expires_at
          returning *`,
    );
    return row!;
  }
}

/** How long a fetched document is used: its max-age within the configured bounds, else the default. */
export function documentTtl(maxAgeSeconds: number | undefined, bounds: { ttlSeconds: number; minTtlSeconds: number; maxTtlSeconds: number }): number {
  const wanted = maxAgeSeconds ?? bounds.ttlSeconds;
  return Math.min(Math.max(wanted, bounds.minTtlSeconds), Math.max(bounds.minTtlSeconds, bounds.maxTtlSeconds));
}

interface ParsedMetadata {
  client_name: string | null;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none' | 'client_secret_post';
}

/**
 * Validates client metadata (a registration body or a metadata document). Unknown fields are
 * ignored (RFC 7591 section 2). Redirect URI problems are `invalid_redirect_uri`, the rest
 * `invalid_client_metadata`. Omitted `token_endpoint_auth_method` means `client_secret_post` for
 * a registration (the RFC's default, client_secret_basic, is not offered) and `none` for a document.
 */
function parseClientMetadata(body: unknown, options: { allowSecret: boolean }): ParsedMetadata | OAuthFailure {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return fail('invalid_client_metadata', 'The body must be a JSON object of client metadata.');
  const input = body as Record<string, unknown>;
  const uris = input['redirect_uris'];
  if (!Array.isArray(uris) || uris.length === 0) return fail('invalid_redirect_uri', 'redirect_uris must be a non-empty array.');
  if (uris.length > MAX_REDIRECT_URIS) return fail('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect URIs.`);
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return fail('invalid_redirect_uri', `redirect_uri ${JSON.stringify(typeof uri === 'string' ? uri.slice(0, 200) : uri)} ${problem}.`);
  }
  const name = input['client_name'];
  if (name !== undefined && name !== null && (typeof name !== 'string' || name.length > MAX_NAME || /[\u0000-\u001f\u007f]/.test(name))) {
    return fail('invalid_client_metadata', `client_name must be a string of at most ${MAX_NAME} printable characters.`);
  }
  const grantTypes = input['grant_types'] ?? ['authorization_code'];
  if (!Array.isArray(grantTypes) || grantTypes.length === 0 || grantTypes.some((g) => typeof g !== 'string' || !GRANT_TYPES.includes(g))) {
    return fail('invalid_client_metadata', 'grant_types may hold only authorization_code and refresh_token.');
  }
  if (!grantTypes.includes('authorization_code')) return fail('invalid_client_metadata', 'grant_types must include authorization_code.');
  const responseTypes = input['response_types'] ?? ['code'];
  if (!Array.isArray(responseTypes) || responseTypes.length !== 1 || responseTypes[0] !== 'code')
    return fail('invalid_client_metadata', 'response_types must be ["code"].');
  const method = input['token_endpoint_auth_method'] ?? (options.allowSecret ? 'client_secret_post' : 'none');
  const allowed = options.allowSecret ? ['none', 'client_secret_post'] : ['none'];
  if (typeof method !== 'string' || !allowed.includes(method)) {
    return fail('invalid_client_metadata', `token_endpoint_auth_method must be ${allowed.join(' or ')}.`);
  }
  return {
    client_name: typeof name === 'string' && name.length > 0 ? name : null,
    redirect_uris: [...new Set(uris as string[])],
    grant_types: [...new Set(grantTypes as string[])],
    response_types: ['code'],
    token_endpoint_auth_method: method as 'none' | 'client_secret_post',
  };
}

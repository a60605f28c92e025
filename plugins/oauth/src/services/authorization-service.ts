import { type AuditLog, hashToken, isUlid, newId, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { OAuthConfig } from '../config.js';
import type { AuthorizationRequestRow } from '../models/authorization-request-row.js';
import { Consent } from '../models/consent-row.js';
import { newCode } from '../tokens.js';
import { changedRows } from './changed-rows.js';
import { isLoopbackRedirect } from './redirect-uri.js';

/** The validated parameters of an authorization request. */
export interface AuthorizationParams {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scopes: readonly string[];
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly resource: string;
}

/** Builds the redirect back to the client: its URI with `params` added to the query. */
export function clientRedirect(redirectUri: string, params: Record<string, string | undefined | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== null) url.searchParams.append(name, value);
  return url.href;
}

/**
 * Whether an error of /oauth/authorize, raised before the user did anything, may be sent to this
 * (validated) redirect URI. Registration is open, so a registered URI proves nothing about who
 * controls it: redirecting errors to any of them would make the gateway an open redirector (RFC
 * 9700 section 4.11.2, RFC 6749 section 4.1.2.1). Errors are redirected only where the browser
 * stays on the user's own machine (loopback http), or to a client metadata document's own origin
 * (the host that publishes the client vouches for it); any other client gets the error page.
 */
export function errorRedirectAllowed(client: { kind: string; client_id: string }, redirectUri: string): boolean {
  if (isLoopbackRedirect(redirectUri)) return true;
  return client.kind === 'document' && new URL(redirectUri).origin === new URL(client.client_id).origin;
}

/**
 * Authorization requests between /oauth/authorize and the client's redirect: stored when
 * validated, bound to the browser session, completed once by approval or denial. Consent records
 * (one per user and client) and authorization codes (`oac_`, single use, short-lived).
 */
export class AuthorizationService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; oauthConfig: OAuthConfig }) {}

  async create(sessionId: string, params: AuthorizationParams): Promise<AuthorizationRequestRow> {
    // Expiry on the database's clock, like every expiry of the plugin.
    const [row] = await sqlQuery<AuthorizationRequestRow>(
      this.deps.db,
      sql`insert into oauth_authorization_requests (id, session_id, client_id, redirect_uri, scopes, state, code_challenge, resource, expires_at)
          values (${newId()}, ${sessionId}, ${params.clientId}, ${params.redirectUri}, ${[...params.scopes]}::text[], ${params.state ?? null}, ${params.codeChallenge}, ${params.resource},
                  now() + make_interval(secs => ${this.deps.oauthConfig.requestTtlSeconds}))
          returning *`,
    );
    return row!;
  }

  /** The open request of this session, or undefined (unknown, another browser's, expired or done). */
  async open(requestId: unknown, sessionId: string): Promise<AuthorizationRequestRow | undefined> {
    if (typeof requestId !== 'string' || !isUlid(requestId)) return undefined;
    const [row] = await sqlQuery<AuthorizationRequestRow>(
      this.deps.db,
      sql`select * from oauth_authorization_requests where id = ${requestId} and session_id = ${sessionId} and completed_at is null and expires_at > now()`,
    );
    return row;
  }

  /** Whether the user has an unrevoked consent for this client covering every scope asked for. */
  async consentCovers(userId: string, clientId: string, scopes: readonly string[]): Promise<boolean> {
    const consent = await Consent.query(this.deps.db).where({ user_id: userId, client_id: clientId }).whereNull('revoked_at').first();
    return !!consent && scopes.every((s) => consent.scopes.includes(s));
  }

  /**
   * Approves: records (or widens) the consent unless `auto`, completes the request, and issues a
   * code. Returns the code, or undefined when the request was completed concurrently.
   */
  async approve(request: AuthorizationRequestRow, userId: string, auto: boolean): Promise<string | undefined> {
    return this.deps.db.transaction(async (trx) => {
      const done = await changedRows(
        trx,
        sql`update oauth_authorization_requests set completed_at = now() where id = ${request.id} and completed_at is null returning 1`,
      );
      if (done === 0) return undefined;
      if (!auto) {
        await sqlQuery(
          trx,
          sql`insert into oauth_consents (user_id, client_id, scopes) values (${userId}, ${request.client_id}, ${request.scopes}::text[])
           on conflict (user_id, client_id) do update set
             scopes = case when oauth_consents.revoked_at is null
                           then array(select distinct unnest(oauth_consents.scopes || excluded.scopes) order by 1)
                           else excluded.scopes end,
             revoked_at = null, updated_at = now()`,
        );
        await this.deps.audit.record(
          {
            actor: `user:${userId}`,
            channel: 'dashboard',
            action: 'oauth.consent.grant',
            target: `oauth_client:${request.client_id}`,
            details: { scopes: request.scopes },
          },
          trx,
        );
      }
      const code = newCode();
      await sqlQuery(
        trx,
        sql`insert into oauth_codes (id, code_hash, client_id, user_id, redirect_uri, scopes, resource, code_challenge, expires_at)
            values (${newId()}, ${hashToken(code)}, ${request.client_id}, ${userId}, ${request.redirect_uri}, ${request.scopes}::text[], ${request.resource}, ${request.code_challenge},
                    now() + make_interval(secs => ${this.deps.oauthConfig.codeTtlSeconds}))`,
      );
      return code;
    });
  }

  /** Denies: completes the request without a code. False when it was completed concurrently. */
  async deny(request: AuthorizationRequestRow): Promise<boolean> {
    const done = await changedRows(
      this.deps.db,
      sql`update oauth_authorization_requests set completed_at = now() where id = ${request.id} and completed_at is null returning 1`,
    );
    return done > 0;
  }
}

import { type AuditLog, hashToken, isUlid, newId } from '@gw/kernel';
import type { Knex } from 'knex';
import type { OAuthConfig } from '../config.js';
import type { AuthorizationRequestRow } from '../models/authorization-request-row.js';
import type { ConsentRow } from '../models/consent-row.js';
import { newCode } from '../tokens.js';
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
    const [row] = await this.deps.db<AuthorizationRequestRow>('oauth_authorization_requests')
      .insert({
        id: newId(),
        session_id: sessionId,
        client_id: params.clientId,
        redirect_uri: params.redirectUri,
        scopes: [...params.scopes],
        state: params.state ?? null,
        code_challenge: params.codeChallenge,
        resource: params.resource,
        expires_at: this.deps.db.raw(`now() + make_interval(secs => ?)`, [this.deps.oauthConfig.requestTtlSeconds]) as never,
      })
      .returning('*');
    return row!;
  }

  /** The open request of this session, or undefined (unknown, another browser's, expired or done). */
  async open(requestId: unknown, sessionId: string): Promise<AuthorizationRequestRow | undefined> {
    if (typeof requestId !== 'string' || !isUlid(requestId)) return undefined;
    return this.deps.db<AuthorizationRequestRow>('oauth_authorization_requests')
      .where({ id: requestId, session_id: sessionId })
      .whereNull('completed_at')
      .where('expires_at', '>', this.deps.db.fn.now())
      .first();
  }

  /** Whether the user has an unrevoked consent for this client covering every scope asked for. */
  async consentCovers(userId: string, clientId: string, scopes: readonly string[]): Promise<boolean> {
    const consent = await this.deps.db<ConsentRow>('oauth_consents').where({ user_id: userId, client_id: clientId }).whereNull('revoked_at').first();
    return !!consent && scopes.every((s) => consent.scopes.includes(s));
  }

  /**
   * Approves: records (or widens) the consent unless `auto`, completes the request, and issues a
   * code. Returns the code, or undefined when the request was completed concurrently.
   */
  async approve(request: AuthorizationRequestRow, userId: string, auto: boolean): Promise<string | undefined> {
    return this.deps.db.transaction(async (trx) => {
      const done = await trx('oauth_authorization_requests').where({ id: request.id }).whereNull('completed_at').update({ completed_at: trx.fn.now() });
      if (done === 0) return undefined;
      if (!auto) {
        await trx.raw(
          `insert into oauth_consents (user_id, client_id, scopes) values (?, ?, ?::text[])
           on conflict (user_id, client_id) do update set
             scopes = case when oauth_consents.revoked_at is null
                           then array(select distinct unnest(oauth_consents.scopes || excluded.scopes) order by 1)
                           else excluded.scopes end,
             revoked_at = null, updated_at = now()`,
          [userId, request.client_id, request.scopes],
        );
        await this.deps.audit.record({ actor: `user:${userId}`, channel: 'dashboard', action: 'oauth.consent.grant', target: `oauth_client:${request.client_id}`, details: { scopes: request.scopes } }, trx);
      }
      const code = newCode();
      await trx('oauth_codes').insert({
        id: newId(),
        code_hash: hashToken(code),
        client_id: request.client_id,
        user_id: userId,
        redirect_uri: request.redirect_uri,
        scopes: request.scopes,
        resource: request.resource,
        code_challenge: request.code_challenge,
        expires_at: trx.raw(`now() + make_interval(secs => ?)`, [this.deps.oauthConfig.codeTtlSeconds]),
      });
      return code;
    });
  }

  /** Denies: completes the request without a code. False when it was completed concurrently. */
  async deny(request: AuthorizationRequestRow): Promise<boolean> {
    const done = await this.deps.db('oauth_authorization_requests').where({ id: request.id }).whereNull('completed_at').update({ completed_at: this.deps.db.fn.now() });
    return done > 0;
  }
}

import { type AuditLog, hashToken, newId, type SecretBox, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { OAuthConfig } from '../config.js';
import { AccessToken, type AccessTokenRow } from '../models/access-token-row.js';
import type { ClientRow } from '../models/client-row.js';
import { Code, type CodeRow } from '../models/code-row.js';
import { Consent } from '../models/consent-row.js';
import { Grant } from '../models/grant-row.js';
import { RefreshToken, type RefreshTokenRow } from '../models/refresh-token-row.js';
import { fail, type OAuthFailure } from '../oauth-result.js';
import { isOAuthScope } from '../scopes.js';
import { changedRows } from './changed-rows.js';
import {
  ACCESS_PATTERN,
  ACCESS_TOKEN_SECONDS,
  CODE_PATTERN,
  REFRESH_PATTERN,
  REFRESH_TOKEN_SECONDS,
  newAccessToken,
  newRefreshToken,
  pkceMatches,
} from '../tokens.js';

/** A successful token response (spec 4.6). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  /** Only for clients registered for the refresh_token grant. */
  refresh_token?: string;
  scope: string;
}

/** A verified access token, for the MCP endpoint (issue 9). */
export interface VerifiedAccessToken {
  readonly ok: true;
  /** Id of the access token (the rate-limit key is `oauth:<tokenId>`). */
  readonly tokenId: string;
  readonly grantId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly scopes: readonly string[];
  /** The resource the token was issued for; the MCP endpoint refuses any other (spec 5.4 rule 6). */
  readonly resource: string;
  readonly expiresAt: Date;
}

/** Why a bearer token is refused; each is 401 `invalid_token` on the wire. */
export interface RefusedAccessToken {
  readonly ok: false;
  readonly reason: 'unknown' | 'revoked' | 'expired' | 'lineage_revoked';
}

/** What the connected-apps revoke did. */
export interface AppRevocation {
  user_id: string;
  client_id: string;
  consent_revoked: boolean;
  grants_revoked: number;
  access_tokens_revoked: number;
  refresh_tokens_revoked: number;
}

/** A connected app of a user. */
export interface ConnectedApp {
  client_id: string;
  client_name: string | null;
  scopes: string[];
  consented_at_iso: string | null;
  consent_revoked_at_iso: string | null;
  active_grants: number;
  last_token_at_iso: string | null;
}

interface SealedPair {
  access_token: string;
  refresh_token: string;
  access_id: string;
}

/** The audit action of each kind of replay that revokes a grant. */
const REPLAY_ACTIONS = { code_reuse: 'oauth.code.reuse_detected', refresh_replay: 'oauth.refresh.replay_detected' } as const;

/**
 * Codes, tokens, rotation, replay detection, revocation and verification (spec 3.3). Tokens are
 * stored only as SHA-256 hashes. A lineage is one `oauth_grants` row: every token descended from
 * one code exchange; revoking it revokes every access and refresh token in it, synchronously.
 *
 * Locks are always taken grant first, then token rows, so a rotation, a replay and a revocation of
 * one lineage serialise without deadlocks.
 */
export class TokenService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; secretBox: SecretBox; oauthConfig: OAuthConfig }) {}

  /** grant_type=authorization_code. A code is burnt by the first exchange attempt that names it. */
  async exchangeCode(input: {
    client: ClientRow;
    code: string;
    redirectUri: string;
    codeVerifier: string;
    resource: string;
    requestId: string;
  }): Promise<TokenResponse | OAuthFailure> {
    if (!CODE_PATTERN.test(input.code)) return fail('invalid_grant', 'The authorization code is invalid.');
    return this.deps.db.transaction(async (trx) => {
      // Expiry is decided by the database's clock (`expired`), like every other expiry of the plugin.
      const [code] = await sqlQuery<CodeRow & { expired: boolean }>(
        trx,
        sql`select *, expires_at <= now() as expired from oauth_codes where code_hash = ${hashToken(input.code)} for update`,
      );
      if (!code || code.client_id !== input.client.client_id) return fail('invalid_grant', 'The authorization code is invalid.');
      if (code.consumed_at) {
        // RFC 6749 section 4.1.2: a code used twice revokes what was issued from it.
        if (code.grant_id) {
          await this.revokeReplayed(
            trx,
            'code_reuse',
            { id: code.grant_id, client_id: code.client_id },
            { code_id: code.id, user_id: code.user_id },
            input.requestId,
          );
        }
        return fail('invalid_grant', 'The authorization code was already used; the tokens issued from it are revoked.');
      }
      await sqlQuery(trx, sql`update oauth_codes set consumed_at = now() where id = ${code.id}`);
      if (code.expired) return fail('invalid_grant', 'The authorization code has expired.');
      if (code.redirect_uri !== input.redirectUri) return fail('invalid_grant', 'redirect_uri differs from the authorization request.');
      if (code.resource !== input.resource) return fail('invalid_target', 'resource differs from the authorization request.');
      if (!pkceMatches(input.codeVerifier, code.code_challenge)) return fail('invalid_grant', 'code_verifier does not match the code_challenge.');
      // A consent revoked (connected-apps revoke) after this code was issued takes the code with it.
      const consent = await Consent.query(trx).where({ user_id: code.user_id, client_id: code.client_id }).whereNull('revoked_at').forShare().first();
      if (!consent) return fail('invalid_grant', 'The authorization was revoked.');
      const grantId = newId();
      await Grant.query(trx).insert({
        id: grantId,
        user_id: code.user_id,
        client_id: code.client_id,
        scopes: code.scopes,
        resource: code.resource,
        code_id: code.id,
      });
      await Code.query(trx).findById(code.id).patch({ grant_id: grantId });
      const issued = await this.issuePair(trx, {
        grantId,
        clientId: code.client_id,
        userId: code.user_id,
        scopes: code.scopes,
        resource: code.resource,
        parentId: null,
      });
      // The lineage's refresh row is stored either way (revocation follows it), but a client not
      // registered for refresh_token could never use the token: it is not handed out.
      if (!input.client.grant_types.includes('refresh_token')) {
        const { refresh_token: _unusable, ...accessOnly } = issued.response;
        return accessOnly;
      }
      return issued.response;
    });
  }

  /**
   * grant_type=refresh_token with mandatory rotation. The presented token is consumed and a new
   * pair issued in one transaction. Presented again: within `refreshLeewaySeconds` of its rotation,
   * by the same client, while its successor is still unused, it returns that same successor pair
   * (concurrent refreshes of one client); otherwise it is a replay and the whole lineage is revoked.
   */
  async refresh(input: {
    client: ClientRow;
    refreshToken: string;
    resource: string;
    scope: string | undefined;
    requestId: string;
  }): Promise<TokenResponse | OAuthFailure> {
    if (!REFRESH_PATTERN.test(input.refreshToken)) return fail('invalid_grant', 'The refresh token is invalid.');
    const hash = hashToken(input.refreshToken);
    const peek = await RefreshToken.query(this.deps.db).findOne({ token_hash: hash });
    if (!peek || peek.client_id !== input.client.client_id) return fail('invalid_grant', 'The refresh token is invalid.');
    return this.deps.db.transaction(async (trx) => {
      const grant = await Grant.query(trx).findById(peek.grant_id).forUpdate();
      const [token] = await sqlQuery<RefreshTokenRow & { expired: boolean }>(
        trx,
        sql`select *, expires_at <= now() as expired from oauth_refresh_tokens where id = ${peek.id} for update`,
      );
      if (!grant || !token) return fail('invalid_grant', 'The refresh token is invalid.');
      if (grant.revoked_at || token.revoked_at) return fail('invalid_grant', 'The refresh token has been revoked.');
      if (token.consumed_at) {
        const replayed = await this.successorWithinLeeway(trx, token);
        if (replayed) return replayed;
        await this.revokeReplayed(
          trx,
          'refresh_replay',
          grant,
          { refresh_token_id: token.id, user_id: grant.user_id, client_id: grant.client_id },
          input.requestId,
        );
        return fail('invalid_grant', 'The refresh token was already used; every token of its lineage is revoked.');
      }
      if (token.expired) return fail('invalid_grant', 'The refresh token has expired.');
      if (input.resource !== grant.resource) return fail('invalid_target', 'resource differs from the one the tokens were issued for.');
      let scopes = grant.scopes;
      if (input.scope !== undefined && input.scope.trim() !== '') {
        const requested = input.scope.split(' ').filter(Boolean);
        const outside = requested.find((s) => !isOAuthScope(s) || !grant.scopes.includes(s));
        if (outside) return fail('invalid_scope', `Scope ${outside} was not granted.`);
        scopes = grant.scopes.filter((s) => requested.includes(s));
      }
      const issued = await this.issuePair(trx, {
        grantId: grant.id,
        clientId: grant.client_id,
        userId: grant.user_id,
        scopes,
        resource: grant.resource,
        parentId: token.id,
      });
      const sealed = this.deps.secretBox.seal(
        JSON.stringify({
          access_token: issued.response.access_token,
          refresh_token: issued.response.refresh_token,
          access_id: issued.accessId,
        } satisfies SealedPair),
        sealAad(token.id),
      );
      await sqlQuery(
        trx,
        sql`update oauth_refresh_tokens set consumed_at = now(), successor_id = ${issued.refreshId}, sealed_successor = ${sealed} where id = ${token.id}`,
      );
      // The parent's sealed copy named this token, which is now consumed: it can never be returned again.
      if (token.parent_id) await RefreshToken.query(trx).findById(token.parent_id).patch({ sealed_successor: null });
      return issued.response;
    });
  }

  /** RFC 7009 for spec 3.3: an access token alone; a refresh token with its whole lineage. Silent. */
  async revoke(input: { client: ClientRow; token: string; requestId: string }): Promise<void> {
    const hash = hashToken(input.token);
    if (ACCESS_PATTERN.test(input.token)) {
      const row = await AccessToken.query(this.deps.db).findOne({ token_hash: hash });
      if (!row || row.client_id !== input.client.client_id) return;
      await this.deps.db.transaction(async (trx) => {
        const changed = await changedRows(trx, sql`update oauth_access_tokens set revoked_at = now() where id = ${row.id} and revoked_at is null returning 1`);
        if (changed > 0) await this.recordRevoke(trx, input, `oauth_access_token:${row.id}`, { grant_id: row.grant_id });
      });
      return;
    }
    if (REFRESH_PATTERN.test(input.token)) {
      const row = await RefreshToken.query(this.deps.db).findOne({ token_hash: hash });
      if (!row || row.client_id !== input.client.client_id) return;
      await this.deps.db.transaction(async (trx) => {
        const grant = await Grant.query(trx).findById(row.grant_id).forUpdate();
        if (!grant || grant.revoked_at) return;
        await this.revokeGrant(trx, grant.id, 'revoked_by_client');
        await this.recordRevoke(trx, input, `oauth_grant:${grant.id}`, { refresh_token_id: row.id });
      });
    }
  }

  /** The audit row of a revocation by the client (RFC 7009), in the revocation's transaction. */
  private async recordRevoke(
    trx: Knex.Transaction,
    input: { client: ClientRow; requestId: string },
    target: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    await this.deps.audit.record(
      { actor: `oauth_client:${input.client.client_id}`, channel: 'rest', action: 'oauth.token.revoke', target, details, requestId: input.requestId },
      trx,
    );
  }

  /**
   * Verifies a bearer token for the MCP endpoint: the token, who it acts for and what it may do, or
   * why it is refused. Reads the database every time, so a revocation takes effect at once.
   */
  async verifyAccessToken(token: string): Promise<VerifiedAccessToken | RefusedAccessToken> {
    if (!ACCESS_PATTERN.test(token)) return { ok: false, reason: 'unknown' };
    const [row] = await sqlQuery<AccessTokenRow & { grant_revoked_at: Date | null; expired: boolean }>(
      this.deps.db,
      sql`select t.*, g.revoked_at as grant_revoked_at, t.expires_at <= now() as expired
            from oauth_access_tokens t join oauth_grants g on g.id = t.grant_id
           where t.token_hash = ${hashToken(token)}
           limit 1`,
    );
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.grant_revoked_at) return { ok: false, reason: 'lineage_revoked' };
    if (row.revoked_at) return { ok: false, reason: 'revoked' };
    if (row.expired) return { ok: false, reason: 'expired' };
    return {
      ok: true,
      tokenId: row.id,
      grantId: row.grant_id,
      userId: row.user_id,
      clientId: row.client_id,
      scopes: row.scopes,
      resource: row.resource,
      expiresAt: new Date(row.expires_at),
    };
  }

  /** The user's connected apps: clients with a consent record or a live lineage. */
  async listApps(userId: string): Promise<ConnectedApp[]> {
    const rows = await sqlQuery(
      this.deps.db,
      sql`select c.client_id, c.client_name, cs.scopes as consent_scopes, cs.created_at as consented_at, cs.revoked_at as consent_revoked_at,
              (select count(*)::int from oauth_grants g where g.user_id = ${userId} and g.client_id = c.client_id and g.revoked_at is null) as active_grants,
              (select max(t.created_at) from oauth_access_tokens t where t.user_id = ${userId} and t.client_id = c.client_id) as last_token_at,
              (select array(select distinct unnest(g.scopes) from oauth_grants g where g.user_id = ${userId} and g.client_id = c.client_id and g.revoked_at is null)) as grant_scopes
         from oauth_clients c
         left join oauth_consents cs on cs.client_id = c.client_id and cs.user_id = ${userId}
        where cs.user_id is not null
           or exists (select 1 from oauth_grants g where g.user_id = ${userId} and g.client_id = c.client_id)
        order by c.client_id`,
    );
    const iso = (v: unknown) => (v ? new Date(v as string).toISOString() : null);
    return rows.map((r) => ({
      client_id: String(r['client_id']),
      client_name: (r['client_name'] as string | null) ?? null,
      scopes: ((r['consent_revoked_at'] ? r['grant_scopes'] : (r['consent_scopes'] ?? r['grant_scopes'])) as string[] | null) ?? [],
      consented_at_iso: iso(r['consented_at']),
      consent_revoked_at_iso: iso(r['consent_revoked_at']),
      active_grants: Number(r['active_grants']),
      last_token_at_iso: iso(r['last_token_at']),
    }));
  }

  /** Connected-apps revoke (spec 3.3 last row): every token of (user, client) and the consent, at once. */
  async revokeApp(userId: string, clientId: string, actor: { actor: string; channel: 'cli' | 'dashboard' }): Promise<AppRevocation | undefined> {
    return this.deps.db.transaction(async (trx) => {
      // Codes first: burning them waits for an exchange in flight, whose grant the next statement then sees.
      const codes = await changedRows(
        trx,
        sql`update oauth_codes set consumed_at = now() where user_id = ${userId} and client_id = ${clientId} and consumed_at is null returning 1`,
      );
      const grants = await Grant.query(trx).where({ user_id: userId, client_id: clientId }).orderBy('id').forUpdate();
      const consent = await Consent.query(trx).where({ user_id: userId, client_id: clientId }).forUpdate().first();
      if (grants.length === 0 && !consent && codes === 0) return undefined;
      const result: AppRevocation = {
        user_id: userId,
        client_id: clientId,
        consent_revoked: false,
        grants_revoked: 0,
        access_tokens_revoked: 0,
        refresh_tokens_revoked: 0,
      };
      for (const grant of grants) {
        const counts = await this.revokeGrant(trx, grant.id, 'app_revoked');
        if (!grant.revoked_at) result.grants_revoked += 1;
        result.access_tokens_revoked += counts.access;
        result.refresh_tokens_revoked += counts.refresh;
      }
      result.consent_revoked =
        (await changedRows(
          trx,
          sql`update oauth_consents set revoked_at = now() where user_id = ${userId} and client_id = ${clientId} and revoked_at is null returning 1`,
        )) > 0;
      await this.deps.audit.record({ ...actor, action: 'oauth.app.revoke', target: `oauth_client:${clientId}`, details: { ...result } }, trx);
      return result;
    });
  }

  /**
   * Ends everything OAuth of a disabled user (issue 33 item 12), within the caller's transaction:
   * unused codes are burnt, every grant with its access and refresh tokens is revoked, every consent
   * withdrawn (an app must ask again should the user be enabled). Returns how many grants ended.
   */
  async revokeAllOf(userId: string, trx: Knex.Transaction): Promise<number> {
    await sqlQuery(trx, sql`update oauth_codes set consumed_at = now() where user_id = ${userId} and consumed_at is null`);
    const grants = await Grant.query(trx).where({ user_id: userId }).whereNull('revoked_at').orderBy('id').forUpdate();
    for (const grant of grants) await this.revokeGrant(trx, grant.id, 'user_disabled');
    await sqlQuery(trx, sql`update oauth_consents set revoked_at = now() where user_id = ${userId} and revoked_at is null`);
    return grants.length;
  }

  /** Revokes a lineage: the grant, every access token and every refresh token of it. */
  /**
   * A code or refresh token came back after use (a theft signal): revokes its grant's lineage and
   * audits the detection as the client.
   */
  private async revokeReplayed(
    trx: Knex.Transaction,
    reason: keyof typeof REPLAY_ACTIONS,
    grant: { readonly id: string; readonly client_id: string },
    details: Record<string, unknown>,
    requestId: string,
  ): Promise<void> {
    await this.revokeGrant(trx, grant.id, reason);
    await this.deps.audit.record(
      { actor: `oauth_client:${grant.client_id}`, channel: 'rest', action: REPLAY_ACTIONS[reason], target: `oauth_grant:${grant.id}`, details, requestId },
      trx,
    );
  }

  private async revokeGrant(trx: Knex.Transaction, grantId: string, reason: string): Promise<{ access: number; refresh: number }> {
    await sqlQuery(trx, sql`update oauth_grants set revoked_at = now(), revoked_reason = ${reason} where id = ${grantId} and revoked_at is null`);
    const access = await changedRows(
      trx,
      sql`update oauth_access_tokens set revoked_at = now() where grant_id = ${grantId} and revoked_at is null returning 1`,
    );
    const refresh = await changedRows(
      trx,
      sql`update oauth_refresh_tokens set revoked_at = now(), sealed_successor = null where grant_id = ${grantId} and revoked_at is null returning 1`,
    );
    await sqlQuery(trx, sql`update oauth_refresh_tokens set sealed_successor = null where grant_id = ${grantId} and sealed_successor is not null`);
    return { access, refresh };
  }

  /** The successor pair of a consumed token when the leeway rule applies, else undefined. */
  private async successorWithinLeeway(trx: Knex.Transaction, token: RefreshTokenRow): Promise<TokenResponse | undefined> {
    const leewayMs = this.deps.oauthConfig.refreshLeewaySeconds * 1000;
    if (leewayMs === 0 || !token.consumed_at || !token.successor_id || !token.sealed_successor) return undefined;
    const [leeway] = await sqlQuery<{ within: boolean }>(
      trx,
      sql`select ${token.consumed_at}::timestamptz + make_interval(secs => ${this.deps.oauthConfig.refreshLeewaySeconds}) > now() as within`,
    );
    if (!leeway?.within) return undefined;
    const successor = await RefreshToken.query(trx).findById(token.successor_id);
    if (!successor || successor.consumed_at || successor.revoked_at) return undefined;
    const pair = JSON.parse(this.deps.secretBox.open(token.sealed_successor, sealAad(token.id))) as SealedPair;
    const [access] = await sqlQuery<AccessTokenRow & { remaining: number }>(
      trx,
      sql`select *, floor(extract(epoch from expires_at - now()))::int as remaining from oauth_access_tokens where id = ${pair.access_id}`,
    );
    if (!access || access.revoked_at) return undefined;
    const remaining = Math.max(1, access.remaining);
    return {
      access_token: pair.access_token,
      token_type: 'Bearer',
      expires_in: Math.min(ACCESS_TOKEN_SECONDS, remaining),
      refresh_token: pair.refresh_token,
      scope: access.scopes.join(' '),
    };
  }

  private async issuePair(
    trx: Knex.Transaction,
    input: { grantId: string; clientId: string; userId: string; scopes: readonly string[]; resource: string; parentId: string | null },
  ): Promise<{ response: TokenResponse & { refresh_token: string }; accessId: string; refreshId: string }> {
    const accessToken = newAccessToken();
    const refreshToken = newRefreshToken();
    const refreshId = newId();
    const accessId = newId();
    // Expiry is set on the database's clock, like every expiry of the plugin.
    await sqlQuery(
      trx,
      sql`insert into oauth_refresh_tokens (id, grant_id, parent_id, token_hash, client_id, expires_at)
          values (${refreshId}, ${input.grantId}, ${input.parentId}, ${hashToken(refreshToken)}, ${input.clientId}, now() + make_interval(secs => ${REFRESH_TOKEN_SECONDS}))`,
    );
    await sqlQuery(
      trx,
      sql`insert into oauth_access_tokens (id, grant_id, refresh_token_id, token_hash, client_id, user_id, scopes, resource, expires_at)
          values (${accessId}, ${input.grantId}, ${refreshId}, ${hashToken(accessToken)}, ${input.clientId}, ${input.userId}, ${[...input.scopes]}::text[], ${input.resource}, now() + make_interval(secs => ${ACCESS_TOKEN_SECONDS}))`,
    );
    return {
      response: {
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: ACCESS_TOKEN_SECONDS,
        refresh_token: refreshToken,
        scope: input.scopes.join(' '),
      },
      accessId,
      refreshId,
    };
  }
}

export const sealAad = (refreshTokenId: string) => `oauth-refresh-successor:${refreshTokenId}`;

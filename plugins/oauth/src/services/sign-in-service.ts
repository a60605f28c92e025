import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { hashToken, isUlid, newId, type RateLimiter, type Sql, sql, sqlQuery } from '@gw/kernel';
import { normaliseEmail, type UserService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { OAuthConfig } from '../config.js';
import type { EmailChallengeRow } from '../models/email-challenge-row.js';
import type { SessionRow } from '../models/session-row.js';
import type { CodeMailer } from './mailer.js';

/** Name of the sign-in session cookie (path /oauth, HttpOnly, SameSite=Lax, Secure on https). */
export const SESSION_COOKIE = 'gw_oauth_session';

/** A browser session and the cookie value that names it (needed for the CSRF token). */
export interface BrowserSession {
  readonly row: SessionRow;
  readonly token: string;
  /** Set-Cookie value when the cookie is new or rotated. */
  readonly setCookie?: string;
}

export type StartResult = { challengeId: string } | { problem: 'invalid_email' | 'unavailable' } | { problem: 'rate_limited'; retryAfter: number };
export type VerifyResult = { userId: string } | { problem: 'invalid' | 'expired' | 'exhausted' };

/**
 * Browser sign-in for the authorize pages: the session cookie (a random value; the database keeps
 * its SHA-256), CSRF tokens derived from it, and e-mailed one-time codes for invited users.
 *
 * An address that is not invited gets exactly the answers an invited one gets (a challenge row is
 * written either way, the mail is sent in the background), but its challenge can never succeed:
 * no account is created and the pages do not reveal whether the address exists.
 */
export class SignInService {
  constructor(
    private readonly deps: {
      db: Knex;
      rateLimiter: RateLimiter;
      logger: Logger;
      oauthConfig: OAuthConfig;
      oauthMailer: CodeMailer;
      tenancyUsers: UserService;
    },
  ) {}

  /** The live session named by the cookie value, if any. */
  async find(token: string | undefined): Promise<BrowserSession | undefined> {
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
    const [row] = await sqlQuery<SessionRow>(this.deps.db, sql`select * from oauth_sessions where token_hash = ${hashToken(token)} and expires_at > now()`);
    return row ? { row, token } : undefined;
  }

  /** The session of the cookie, or a new anonymous one with its Set-Cookie. */
  async ensure(token: string | undefined, secure: boolean): Promise<BrowserSession> {
    const existing = await this.find(token);
    if (existing) return existing;
    const fresh = randomBytes(32).toString('base64url');
    const [row] = await sqlQuery<SessionRow>(
      this.deps.db,
      sql`insert into oauth_sessions (id, token_hash, user_id, expires_at) values (${newId()}, ${hashToken(fresh)}, null, ${this.expiry()}) returning *`,
    );
    return { row: row!, token: fresh, setCookie: this.cookie(fresh, secure) };
  }

  /** Marks the session signed in and rotates its cookie value (no session fixation). */
  async signIn(session: BrowserSession, userId: string, secure: boolean): Promise<BrowserSession> {
    const fresh = randomBytes(32).toString('base64url');
    const [row] = await sqlQuery<SessionRow>(
      this.deps.db,
      sql`update oauth_sessions set token_hash = ${hashToken(fresh)}, user_id = ${userId}, signed_in_at = now(), expires_at = ${this.expiry()} where id = ${session.row.id} returning *`,
    );
    return { row: row!, token: fresh, setCookie: this.cookie(fresh, secure) };
  }

  /** The CSRF token of the session's forms: HMAC of a fixed label keyed with the cookie value. */
  csrfToken(session: BrowserSession): string {
    return createHmac('sha256', session.token).update('oauth-form').digest('base64url');
  }

  checkCsrf(session: BrowserSession, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(session));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  /**
   * Starts an e-mail challenge: writes it and (for an invited address) mails the code.
   *
   * Codes are limited per requester (`requester`: the client address) and per session, per
   * (address, requester), and per address over all requesters (issue 24 item 4). The address-wide
   * cap is larger than what one requester may ask for one address, and a request refused by an
   * earlier limit is not counted by a later one: a stranger exhausting their own budgets for
   * someone's address leaves that person able to get codes from their own address.
   */
  async start(session: BrowserSession, rawEmail: unknown, clientName: string, requester: string): Promise<StartResult> {
    const purpose = `Someone (hopefully you) is signing in to connect "${clientName}" to your payment gateway account.`;
    return this.startChallenge({ session_id: session.row.id, binding: null }, `session:${session.row.id}`, rawEmail, purpose, requester);
  }

  /**
   * Starts an e-mail challenge for another sign-in surface (the operator dashboard): the challenge
   * belongs to `binding` (the caller's key for its pre-sign-in session, e.g. `dashboard:<id>`) and is
   * checked with `verifyFor`. Same limits, same answers for unknown addresses, and `purpose` is the
   * mail's sentence saying what the code signs in to.
   */
  async startFor(binding: string, rawEmail: unknown, purpose: string, requester: string): Promise<StartResult> {
    return this.startChallenge({ session_id: null, binding }, `binding:${binding}`, rawEmail, purpose, requester);
  }

  private async startChallenge(owner: { session_id: string | null; binding: string | null }, ownerKey: string, rawEmail: unknown, purpose: string, requester: string): Promise<StartResult> {
    const email = normaliseEmail(rawEmail);
    if (email === undefined) return { problem: 'invalid_email' };
    if (!this.deps.oauthMailer.available) return { problem: 'unavailable' };
    const { sendsPerHour, sendsPerHourPerIp, sendsPerHourPerAddress } = this.deps.oauthConfig.emailCode;
    const address = hashToken(email);
    const rules = [
      { key: `oauth.sign-in:ip:${requester}`, limit: sendsPerHourPerIp },
      { key: `oauth.sign-in:${ownerKey}`, limit: sendsPerHour },
      { key: `oauth.sign-in:email-ip:${address}:${requester}`, limit: sendsPerHour },
      { key: `oauth.sign-in:email:${address}`, limit: sendsPerHourPerAddress },
    ];
    for (const rule of rules) {
      const hit = await this.deps.rateLimiter.hit({ ...rule, windowSeconds: 3600 });
      if (!hit.allowed) return { problem: 'rate_limited', retryAfter: hit.retryAfter };
    }
    const user = await this.deps.tenancyUsers.findForSignIn(email);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId();
    await sqlQuery(
      this.deps.db,
      sql`insert into oauth_email_challenges (id, session_id, binding, user_id, code_hash, expires_at)
          values (${id}, ${owner.session_id}, ${owner.binding}, ${user?.id ?? null}, ${hashToken(`${id}:${code}`)}, now() + make_interval(secs => ${this.deps.oauthConfig.emailCode.ttlSeconds}))`,
    );
    if (user) {
      // Not awaited: an invited address must not answer slower than an unknown one.
      this.deps.oauthMailer.send(user.email, code, purpose).catch((error: unknown) => this.deps.logger.error({ err: error, challengeId: id }, 'sign-in code mail failed'));
    }
    return { challengeId: id };
  }

  /** Checks an entered code; a wrong one counts against the challenge's attempts. */
  async verify(session: BrowserSession, challengeId: unknown, rawCode: unknown): Promise<VerifyResult> {
    return this.verifyChallenge({ session_id: session.row.id }, challengeId, rawCode);
  }

  /**
   * Checks a code of a challenge started with `startFor(binding, ...)`; a wrong one counts against
   * its attempts. Success marks the user signed in (an invitation is accepted); it never creates one.
   */
  async verifyFor(binding: string, challengeId: unknown, rawCode: unknown): Promise<VerifyResult> {
    return this.verifyChallenge({ binding }, challengeId, rawCode);
  }

  private async verifyChallenge(owner: { session_id: string } | { binding: string }, challengeId: unknown, rawCode: unknown): Promise<VerifyResult> {
    if (typeof challengeId !== 'string' || !isUlid(challengeId)) return { problem: 'invalid' };
    const code = typeof rawCode === 'string' ? rawCode.replace(/\s+/g, '') : '';
    return this.deps.db.transaction(async (trx) => {
      const ownedBy = 'session_id' in owner ? sql`session_id = ${owner.session_id}` : sql`binding = ${owner.binding}`;
      const [row] = await sqlQuery<EmailChallengeRow & { expired: boolean }>(
        trx,
        sql`select *, expires_at <= now() as expired from oauth_email_challenges where id = ${challengeId} and ${ownedBy} for update`,
      );
      if (!row || row.consumed_at) return { problem: 'invalid' as const };
      if (row.expired) return { problem: 'expired' as const };
      if (row.attempts >= this.deps.oauthConfig.emailCode.maxAttempts) return { problem: 'exhausted' as const };
      const expected = Buffer.from(row.code_hash, 'hex');
      const given = Buffer.from(hashToken(`${row.id}:${code}`), 'hex');
      const matches = /^\d{6}$/.test(code) && timingSafeEqual(expected, given);
      if (!matches || row.user_id === null) {
        await sqlQuery(trx, sql`update oauth_email_challenges set attempts = attempts + 1 where id = ${row.id}`);
        return { problem: row.attempts + 1 >= this.deps.oauthConfig.emailCode.maxAttempts ? ('exhausted' as const) : ('invalid' as const) };
      }
      await sqlQuery(trx, sql`update oauth_email_challenges set consumed_at = now() where id = ${row.id}`);
      await this.deps.tenancyUsers.markSignedIn(row.user_id, trx);
      return { userId: row.user_id };
    });
  }

  /** A session's expiry, on the database's clock. */
  private expiry(): Sql {
    return sql`now() + make_interval(secs => ${this.deps.oauthConfig.sessionTtlSeconds})`;
  }

  private cookie(value: string, secure: boolean): string {
    return `${SESSION_COOKIE}=${value}; Path=/oauth; Max-Age=${this.deps.oauthConfig.sessionTtlSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }
}

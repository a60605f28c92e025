import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { formToken, formTokenMatches, hashToken, isUlid, newId, type RateLimiter, type Sql, sql, sqlQuery } from '@gw/kernel';
import { normaliseEmail, type OperatorService, type UserService, type UserView } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { OAuthConfig } from '../config.js';
import type { EmailChallengeRow } from '../models/email-challenge-row.js';
import type { SessionRow } from '../models/session-row.js';
import { changedRows } from './changed-rows.js';
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
/**
 * `locked`: the address reached its cap of wrong codes (any of its codes) in the last hour; every
 * code is refused for `retryAfter` seconds. `choose_operator`: the code is right and users of
 * several operators have the address: the same code again with one of `operators` signs in (the
 * code is neither used nor counted as wrong).
 */
export type VerifyResult =
  | { userId: string }
  | { problem: 'invalid' | 'expired' | 'exhausted' }
  | { problem: 'locked'; retryAfter: number }
  | { problem: 'choose_operator'; operators: { id: string; name: string }[] };

/** The window of the wrong-code cap per address (issue 33 item 15). */
const WRONG_CODE_WINDOW_SECONDS = 3600;
/** The label of the sign-in pages' form tokens (the dashboard's differ). */
const FORM_LABEL = 'oauth-form';

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
      tenancyOperators: OperatorService;
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

  /** Ends every signed-in session of the user (within `trx`); returns how many ended. */
  async endSessionsOf(userId: string, trx: Knex.Transaction): Promise<number> {
    return changedRows(trx, sql`delete from oauth_sessions where user_id = ${userId} returning 1`);
  }

  /** The CSRF token of the session's forms: HMAC of a fixed label keyed with the cookie value. */
  csrfToken(session: BrowserSession): string {
    return formToken(session.token, FORM_LABEL);
  }

  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: BrowserSession, presented: unknown): boolean {
    return formTokenMatches(session.token, FORM_LABEL, presented);
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

  private async startChallenge(
    owner: { session_id: string | null; binding: string | null },
    ownerKey: string,
    rawEmail: unknown,
    purpose: string,
    requester: string,
  ): Promise<StartResult> {
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
    // One address may be a user of several operators (issue 33 item 18): one code for the address;
    // which operator it signs in to is chosen after the right code (verify's `choose_operator`).
    const [user] = await this.deps.tenancyUsers.findForSignIn(email);
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId();
    await sqlQuery(
      this.deps.db,
      sql`insert into oauth_email_challenges (id, session_id, binding, user_id, address_hash, code_hash, expires_at)
          values (${id}, ${owner.session_id}, ${owner.binding}, ${user?.id ?? null}, ${address}, ${hashToken(`${id}:${code}`)}, now() + make_interval(secs => ${this.deps.oauthConfig.emailCode.ttlSeconds}))`,
    );
    if (user) {
      // Not awaited: an invited address must not answer slower than an unknown one.
      this.deps.oauthMailer
        .send(user.email, code, purpose)
        .catch((error: unknown) => this.deps.logger.error({ err: error, challengeId: id }, 'sign-in code mail failed'));
    }
    return { challengeId: id };
  }

  /** Checks an entered code; a wrong one counts against the challenge's attempts. */
  async verify(session: BrowserSession, challengeId: unknown, rawCode: unknown, operatorId?: unknown): Promise<VerifyResult> {
    return this.verifyChallenge({ session_id: session.row.id }, challengeId, rawCode, operatorId);
  }

  /**
   * Checks a code of a challenge started with `startFor(binding, ...)`; a wrong one counts against
   * its attempts. Success marks the user signed in (an invitation is accepted); it never creates one.
   */
  async verifyFor(binding: string, challengeId: unknown, rawCode: unknown, operatorId?: unknown): Promise<VerifyResult> {
    return this.verifyChallenge({ binding }, challengeId, rawCode, operatorId);
  }

  private async verifyChallenge(
    owner: { session_id: string } | { binding: string },
    challengeId: unknown,
    rawCode: unknown,
    operatorId: unknown,
  ): Promise<VerifyResult> {
    if (typeof challengeId !== 'string' || !isUlid(challengeId)) return { problem: 'invalid' };
    const code = typeof rawCode === 'string' ? rawCode.replace(/\s+/g, '') : '';
    const { maxAttempts, wrongPerHourPerAddress } = this.deps.oauthConfig.emailCode;
    return this.deps.db.transaction(async (trx): Promise<VerifyResult> => {
      const ownedBy = 'session_id' in owner ? sql`session_id = ${owner.session_id}` : sql`binding = ${owner.binding}`;
      const [row] = await sqlQuery<EmailChallengeRow & { expired: boolean }>(
        trx,
        sql`select *, expires_at <= now() as expired from oauth_email_challenges where id = ${challengeId} and ${ownedBy} for update`,
      );
      if (!row || row.consumed_at) return { problem: 'invalid' };
      if (row.expired) return { problem: 'expired' };
      // The address's cap over all its codes (issue 33 item 15): without it, 30 codes an hour with 5
      // tries each gave 150 guesses an hour. Unknown addresses are counted alike (no enumeration).
      const address = row.address_hash;
      let wrongSoFar = 0;
      if (address !== null) {
        // Concurrent entries for one address are counted one after the other.
        await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`oauth:wrong-codes:${address}`}, 0))`);
        const [window] = await sqlQuery<{ wrong: number; retry_after: number }>(
          trx,
          sql`select count(*)::int as wrong,
                     greatest(1, ceil(extract(epoch from min(failed_at) + make_interval(secs => ${WRONG_CODE_WINDOW_SECONDS}) - now())))::int as retry_after
                from oauth_code_failures
               where address_hash = ${address} and failed_at > now() - make_interval(secs => ${WRONG_CODE_WINDOW_SECONDS})`,
        );
        wrongSoFar = window!.wrong;
        if (wrongSoFar >= wrongPerHourPerAddress) return { problem: 'locked', retryAfter: window!.retry_after };
      }
      if (row.attempts >= maxAttempts) return { problem: 'exhausted' };
      const expected = Buffer.from(row.code_hash, 'hex');
      const given = Buffer.from(hashToken(`${row.id}:${code}`), 'hex');
      const matches = /^\d{6}$/.test(code) && timingSafeEqual(expected, given);
      const candidates = matches && row.user_id !== null ? await this.candidates(row.user_id) : [];
      if (candidates.length === 0) {
        await sqlQuery(trx, sql`update oauth_email_challenges set attempts = attempts + 1 where id = ${row.id}`);
        if (address !== null) {
          await sqlQuery(trx, sql`insert into oauth_code_failures (address_hash) values (${address})`);
          if (wrongSoFar + 1 >= wrongPerHourPerAddress) return { problem: 'locked', retryAfter: WRONG_CODE_WINDOW_SECONDS };
        }
        return { problem: row.attempts + 1 >= maxAttempts ? 'exhausted' : 'invalid' };
      }
      const chosen = candidates.length === 1 ? candidates[0] : candidates.find((u) => u.operator_id === operatorId);
      if (!chosen) {
        // Only someone who read the mail gets here: the operators of the address are theirs to see.
        const operators = await Promise.all(
          candidates.map(async (u) => ({ id: u.operator_id, name: (await this.deps.tenancyOperators.find(u.operator_id)).name })),
        );
        return { problem: 'choose_operator', operators };
      }
      await sqlQuery(trx, sql`update oauth_email_challenges set consumed_at = now() where id = ${row.id}`);
      await this.deps.tenancyUsers.markSignedIn(chosen.id, trx);
      return { userId: chosen.id };
    });
  }

  /** The users a right code of the challenge's user may sign in as: theirs at every operator, not disabled. */
  private async candidates(userId: string): Promise<UserView[]> {
    const user = await this.deps.tenancyUsers.find(userId);
    return user ? this.deps.tenancyUsers.findForSignIn(user.email) : [];
  }

  /** A session's expiry, on the database's clock. */
  private expiry(): Sql {
    return sql`now() + make_interval(secs => ${this.deps.oauthConfig.sessionTtlSeconds})`;
  }

  private cookie(value: string, secure: boolean): string {
    return `${SESSION_COOKIE}=${value}; Path=/oauth; Max-Age=${this.deps.oauthConfig.sessionTtlSeconds}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }
}

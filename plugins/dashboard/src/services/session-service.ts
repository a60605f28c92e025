import { randomBytes } from 'node:crypto';
import { formToken, formTokenMatches, hashToken, newId, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import { fn } from 'objection';
import type { DashboardConfig } from '../config.js';
import { dashboardErrors } from '../errors.js';
import { Session } from '../models/session.js';

/** Name of the dashboard's session cookie (Path=/dashboard, HttpOnly, SameSite=Lax, Secure outside loopback). */
export const DASHBOARD_COOKIE = 'gw_dashboard';

/** `dashboard_sessions` as stored. */
export interface DashboardSessionRow {
  id: string;
  token_hash: string;
  user_id: string | null;
  challenge_id: string | null;
  flash: string | null;
  return_to: string | null;
  created_at: Date;
  signed_in_at: Date | null;
  last_seen_at: Date;
  expires_at: Date;
}

/** A live session and the cookie value that names it (the CSRF token is derived from it). */
export interface DashboardSession {
  readonly row: DashboardSessionRow;
  readonly token: string;
  /** Set-Cookie value when the cookie is new or rotated. */
  readonly setCookie?: string;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A session's `last_seen_at` is written at most this often (a write per page would be waste). */
const TOUCH_EVERY_SECONDS = 30;
/** The label of the dashboard's form tokens (the OAuth sign-in pages' differ). */
const FORM_LABEL = 'dashboard-form';

/**
 * Dashboard browser sessions in PostgreSQL: any gateway instance serves them. The cookie holds 32
 * random bytes; the table keeps their SHA-256. A session is live while `expires_at` (absolute: set
 * at sign-in) is ahead and it was seen within the idle timeout, both on the database clock.
 * By-key reads and writes go through the {@link Session} model; statements that compare with or
 * compute from the database clock (`now()`) and the sweep are `sql` statements.
 */
export class SessionService {
  constructor(private readonly deps: { db: Knex; dashboardConfig: DashboardConfig }) {}

  /**
   * The live session named by the cookie value, if any; refreshes its idle clock. A session past
   * either timeout is deleted here (its cookie is then worthless).
   */
  async find(token: string | undefined): Promise<DashboardSession | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const { db, dashboardConfig } = this.deps;
    const [row] = await sqlQuery<DashboardSessionRow & { live: boolean; stale: boolean }>(
      db,
      sql`select *,
            (expires_at > now() and last_seen_at > now() - make_interval(secs => ${dashboardConfig.idleTimeoutSeconds})) as live,
            last_seen_at < now() - make_interval(secs => ${TOUCH_EVERY_SECONDS}) as stale
          from dashboard_sessions where token_hash = ${hashToken(token)}`,
    );
    if (!row) return undefined;
    if (!row.live) {
      await Session.query(db).deleteById(row.id);
      return undefined;
    }
    if (row.stale) await Session.query(db).findById(row.id).patch({ last_seen_at: fn.now() });
    const { live: _live, stale: _stale, ...session } = row;
    return { row: session, token };
  }

  /**
   * A new session for a sign-in in progress (no user yet), living `signInTtlSeconds`; `returnTo`:
   * the dashboard path it leads to once signed in (checked by the caller with `safeReturnPath`).
   */
  async begin(secure: boolean, returnTo: string | null = null): Promise<DashboardSession> {
    const token = randomBytes(32).toString('base64url');
    const [row] = await sqlQuery<DashboardSessionRow>(
      this.deps.db,
      sql`insert into dashboard_sessions (id, token_hash, expires_at, return_to)
          values (${newId()}, ${hashToken(token)}, now() + make_interval(secs => ${this.deps.dashboardConfig.signInTtlSeconds}), ${returnTo})
          returning *`,
    );
    return { row: row!, token, setCookie: this.cookie(token, secure, this.deps.dashboardConfig.signInTtlSeconds) };
  }

  /** Remembers the open e-mail challenge of a sign-in in progress. */
  async setChallenge(session: DashboardSession, challengeId: string | null): Promise<void> {
    await Session.query(this.deps.db).findById(session.row.id).whereNull('user_id').patch({ challenge_id: challengeId });
  }

  /** Sets where a sign-in in progress leads once signed in (a path checked by `safeReturnPath`). */
  async setReturnTo(session: DashboardSession, returnTo: string): Promise<void> {
    await Session.query(this.deps.db).findById(session.row.id).whereNull('user_id').patch({ return_to: returnTo });
  }

  /**
   * Signs the session in: a new cookie value (no session fixation), the user, and the absolute
   * timeout counted from now. The return path is used up (the caller read it from `session`).
   */
  async signIn(session: DashboardSession, userId: string, secure: boolean): Promise<DashboardSession> {
    const token = randomBytes(32).toString('base64url');
    const ttl = this.deps.dashboardConfig.absoluteTimeoutSeconds;
    const [row] = await sqlQuery<DashboardSessionRow>(
      this.deps.db,
      sql`update dashboard_sessions
          set token_hash = ${hashToken(token)}, user_id = ${userId}, challenge_id = null, return_to = null,
              signed_in_at = now(), last_seen_at = now(), expires_at = now() + make_interval(secs => ${ttl})
          where id = ${session.row.id}
          returning *`,
    );
    return { row: row!, token, setCookie: this.cookie(token, secure, ttl) };
  }

  /** Ends this session. */
  async signOut(session: DashboardSession): Promise<void> {
    await Session.query(this.deps.db).deleteById(session.row.id);
  }

  /** Ends every session of the user (sign-out everywhere), within `trx` when given; returns how many ended. */
  async signOutEverywhere(userId: string, trx?: Knex.Transaction): Promise<number> {
    return Session.query(trx ?? this.deps.db)
      .where({ user_id: userId })
      .delete();
  }

  /** Leaves a one-time notice for the next page of the session (never a secret). */
  async setFlash(session: DashboardSession, text: string): Promise<void> {
    await Session.query(this.deps.db)
      .findById(session.row.id)
      .patch({ flash: text.slice(0, 500) });
  }

  /** Takes the session's notice, if any (it is shown once). */
  async takeFlash(session: DashboardSession): Promise<string | undefined> {
    if (session.row.flash === null) return undefined;
    await Session.query(this.deps.db).findById(session.row.id).patch({ flash: null });
    return session.row.flash;
  }

  /**
   * Records that the session sent the single-use form `nonce`; false when it already had (nothing
   * may be done again). Concurrent sends of one form: exactly one gets true.
   * @throws AppError 403 `csrf_invalid` when the session ended since it was read (signed out elsewhere, swept).
   */
  async useForm(session: DashboardSession, nonce: string): Promise<boolean> {
    const used = await sqlQuery(
      this.deps.db,
      sql`insert into dashboard_form_uses (session_id, nonce) values (${session.row.id}, ${nonce}) on conflict do nothing returning 1`,
    ).catch((error: unknown) => {
      // The session row is gone (a foreign-key violation): the same as a form of an ended session.
      if ((error as { code?: string }).code === '23503') throw dashboardErrors.csrf_invalid();
      throw error;
    });
    return used.length === 1;
  }

  /** Forgets a use whose action failed, so the same form can be corrected and sent again. */
  async releaseForm(session: DashboardSession, nonce: string): Promise<void> {
    await sqlQuery(this.deps.db, sql`delete from dashboard_form_uses where session_id = ${session.row.id} and nonce = ${nonce}`);
  }

  /** The CSRF token of the session's forms: HMAC of a fixed label keyed with the cookie value. */
  csrfToken(session: DashboardSession): string {
    return formToken(session.token, FORM_LABEL);
  }

  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: DashboardSession, presented: unknown): boolean {
    return formTokenMatches(session.token, FORM_LABEL, presented);
  }

  /** The Set-Cookie value that removes the cookie. */
  clearCookie(secure: boolean): string {
    return `${DASHBOARD_COOKIE}=; Path=/dashboard; Max-Age=0; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }

  /** Deletes sessions past their absolute or idle timeout (the sweep job). */
  async sweep(): Promise<number> {
    const { db, dashboardConfig } = this.deps;
    const [result] = await sqlQuery<{ count: number }>(
      db,
      sql`with swept as (
            delete from dashboard_sessions
            where expires_at < now() or last_seen_at < now() - make_interval(secs => ${dashboardConfig.idleTimeoutSeconds})
            returning 1
          )
          select count(*)::int as count from swept`,
    );
    return result!.count;
  }

  private cookie(value: string, secure: boolean, maxAge: number): string {
    return `${DASHBOARD_COOKIE}=${value}; Path=/dashboard; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  }
}

import { type Actor, type AuditLog, isUlid, isUniqueViolation, newId, type UserAccess, isoTime, pick } from '@gw/kernel';
import type { Knex } from 'knex';
import { tenancyErrors } from '../errors.js';
import { PersonalAccessToken } from '../models/personal-access-token.js';
import { USER_ROLES, User, type UserRole } from '../models/user.js';
import { MAX_EMAIL_LENGTH, normaliseEmail } from './email-address.js';
import type { OperatorService } from './operator-service.js';

export interface UserView {
  id: string;
  operator_id: string;
  email: string;
  status: User['status'];
  /** `admin`: every dashboard action; `member`: read-only. */
  role: UserRole;
  invited_at_iso: string;
}

/** What disabling a user or ending their sessions ended, by kind (`pats`, `dashboard_sessions`, ...). */
export interface AccessEnded {
  user: UserView;
  ended: Record<string, number>;
}

/** Confines a lookup to one operator's users (the dashboard; the CLI's `--operator`). */
export interface UserScope {
  operatorId?: string;
}

/** Users are invite-only: nobody gets an account by signing in with an unknown e-mail. */
export class UserService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; userAccess: UserAccess; tenancyOperators: OperatorService }) {}

  /**
   * Invites a user of an operator (`operator`: id or name; default the only one) with a role
   * (default `member`, read-only).
   */
  async invite(input: { email: string; operator?: string; role?: UserRole }, actor: Actor): Promise<UserView> {
    const email = normaliseEmail(input.email);
    if (email === undefined) throw tenancyErrors.invalid_email({ message: `"${input.email.slice(0, MAX_EMAIL_LENGTH)}" is not a valid e-mail address.` });
    const role = checkRole(input.role ?? 'member');
    return this.deps.db.transaction(async (trx) => {
      const operator = await this.deps.tenancyOperators.resolveForNewProject(input.operator, trx, actor);
      // Unique per operator (issue 33 item 18): another operator's user of the address is no concern here.
      if (await User.query(trx).findOne({ operator_id: operator.id, email })) throw tenancyErrors.user_exists();
      const user = await User.query(trx)
        .insertAndFetch({ id: newId(), operator_id: operator.id, email, status: 'invited', role })
        .catch((error: unknown) => {
          // A concurrent invite of the same address got past the check first.
          throw isUniqueViolation(error, 'tenancy_users_operator_email') ? tenancyErrors.user_exists() : error;
        });
      await this.deps.audit.record({ ...actor, action: 'user.invite', target: `user:${user.id}`, details: { email, role } }, trx);
      return this.toView(user);
    });
  }

  async list(): Promise<UserView[]> {
    return (await User.query(this.deps.db).orderBy('id')).map((u) => this.toView(u));
  }

  /** The users of one operator, oldest first, `limit` after the cursor (a user id). */
  async listForOperator(operatorId: string, page: { after?: string; limit: number }): Promise<UserView[]> {
    const query = User.query(this.deps.db).where({ operator_id: operatorId }).orderBy('id').limit(page.limit);
    if (page.after) query.where('id', '>', page.after);
    return (await query).map((u) => this.toView(u));
  }

  /**
   * Sets a user's role (`idOrEmail`; `operatorId` confines the change to one operator's users, as
   * the dashboard does). Audited as `user.role_set` with the previous role.
   */
  async setRole(idOrEmail: string, role: string, actor: Actor, options: UserScope = {}): Promise<UserView> {
    const next = checkRole(role);
    return this.deps.db.transaction(async (trx) => {
      const user = await this.lockedUser(trx, idOrEmail, options);
      if (user.role === next) return this.toView(user);
      if (user.role === 'admin') await this.refuseLastAdmin(trx, user);
      const updated = await User.query(trx).patchAndFetchById(user.id, { role: next });
      await this.deps.audit.record({ ...actor, action: 'user.role_set', target: `user:${user.id}`, details: { role: next, previous: user.role } }, trx);
      return this.toView(updated);
    });
  }

  /**
   * Disables a user (issue 33 item 12): from this commit on they cannot sign in, and everything
   * they held ends in the same transaction: their personal access tokens (revoked) and, through the
   * kernel's `userAccess`, every other plugin's holdings (dashboard sessions, OAuth grants, tokens
   * and consents). The last administrator of an operator who is not disabled cannot be disabled
   * (`last_admin`). Disabling a disabled user changes nothing and is not audited again.
   */
  async disable(idOrEmail: string, actor: Actor, options: UserScope = {}): Promise<AccessEnded> {
    return this.deps.db.transaction(async (trx) => {
      const user = await this.lockedUser(trx, idOrEmail, options);
      if (user.status === 'disabled') return { user: this.toView(user), ended: {} };
      if (user.role === 'admin') await this.refuseLastAdmin(trx, user);
      const updated = await User.query(trx).patchAndFetchById(user.id, { status: 'disabled' });
      const ended = await this.endEverything(trx, user.id);
      await this.deps.audit.record({ ...actor, action: 'user.disable', target: `user:${user.id}`, details: { email: user.email, ended } }, trx);
      return { user: this.toView(updated), ended };
    });
  }

  /**
   * Enables a disabled user: they may sign in again. Nothing that disabling ended comes back
   * (sessions, tokens and grants stay ended); the user becomes `active`.
   */
  async enable(idOrEmail: string, actor: Actor, options: UserScope = {}): Promise<UserView> {
    return this.deps.db.transaction(async (trx) => {
      const user = await this.lockedUser(trx, idOrEmail, options);
      if (user.status !== 'disabled') return this.toView(user);
      // A sign-in that completed in a race with the disable (its code checked just before) could
      // have left a session or grant behind, refused while the user was disabled: it ends here
      // rather than come back to life.
      await this.endEverything(trx, user.id);
      const updated = await User.query(trx).patchAndFetchById(user.id, { status: 'active' });
      await this.deps.audit.record({ ...actor, action: 'user.enable', target: `user:${user.id}`, details: { email: user.email } }, trx);
      return this.toView(updated);
    });
  }

  /**
   * Ends every browser session of a user (dashboard and OAuth sign-in pages) at once, through the
   * kernel's `userAccess`; their OAuth apps and access tokens keep working (revoke those per app,
   * or disable the user). Audited as `user.sessions_end`.
   */
  async endSessions(idOrEmail: string, actor: Actor, options: UserScope = {}): Promise<AccessEnded> {
    return this.deps.db.transaction(async (trx) => {
      const user = await this.lockedUser(trx, idOrEmail, options);
      const ended = await this.deps.userAccess.end(user.id, 'sessions', trx);
      await this.deps.audit.record({ ...actor, action: 'user.sessions_end', target: `user:${user.id}`, details: { email: user.email, ended } }, trx);
      return { user: this.toView(user), ended };
    });
  }

  /**
   * The invited or active users with this e-mail, for sign-in: one per operator that has the
   * address, oldest first; empty for unknown (or only disabled) addresses.
   */
  async findForSignIn(email: string): Promise<UserView[]> {
    const users = await User.query(this.deps.db).where('email', email.trim().toLowerCase()).whereNot('status', 'disabled').orderBy('id');
    return users.map((u) => this.toView(u));
  }

  /**
   * Records a completed sign-in: an `invited` user becomes `active` (the first sign-in accepts the
   * invitation). Active and disabled users are left as they are.
   */
  async markSignedIn(userId: string, trx?: Knex.Transaction): Promise<void> {
    await User.query(trx ?? this.deps.db)
      .patch({ status: 'active' })
      .where({ id: userId, status: 'invited' });
  }

  /**
   * The user with this id or e-mail, whatever its status; undefined when there is none.
   * @throws AppError 409 `user_ambiguous` for an e-mail of users of several operators and no `operatorId`.
   */
  async find(idOrEmail: string, options: UserScope = {}): Promise<UserView | undefined> {
    const user = await this.lookup(this.deps.db, idOrEmail, options, false);
    return user ? this.toView(user) : undefined;
  }

  /** The user by id or e-mail within the scope, locked for the transaction; `user_not_found` otherwise. */
  private async lockedUser(trx: Knex.Transaction, idOrEmail: string, scope: UserScope): Promise<User> {
    const user = await this.lookup(trx, idOrEmail, scope, true);
    if (!user) throw tenancyErrors.user_not_found();
    return user;
  }

  /** The user by id or e-mail within the scope, if any; several users of one e-mail are `user_ambiguous`. */
  private async lookup(db: Knex | Knex.Transaction, idOrEmail: string, scope: UserScope, forUpdate: boolean): Promise<User | undefined> {
    const value = idOrEmail.trim();
    const query = User.query(db);
    if (forUpdate) query.forUpdate();
    if (isUlid(value)) query.where('id', value);
    else query.where('email', value.toLowerCase()).orderBy('id').limit(2);
    if (scope.operatorId !== undefined) query.where('operator_id', scope.operatorId);
    const found = await query;
    if (found.length > 1) throw tenancyErrors.user_ambiguous();
    return found[0];
  }

  /** Revokes the user's PATs and ends every other plugin's holdings of theirs; the counts by kind. */
  private async endEverything(trx: Knex.Transaction, userId: string): Promise<Record<string, number>> {
    const pats = await PersonalAccessToken.query(trx).patch({ revoked_at: new Date() }).where({ user_id: userId }).whereNull('revoked_at');
    return { pats, ...(await this.deps.userAccess.end(userId, 'everything', trx)) };
  }

  /** Refuses to take away the operator's last administrator who is not disabled (`user` among them). */
  private async refuseLastAdmin(trx: Knex.Transaction, user: User): Promise<void> {
    // Locks every admin row of the operator: two concurrent demotions of its last two admins queue.
    const admins = await User.query(trx).where({ operator_id: user.operator_id, role: 'admin' }).whereNot('status', 'disabled').forUpdate();
    if (admins.every((a) => a.id === user.id)) throw tenancyErrors.last_admin();
  }

  private toView(user: User): UserView {
    return { ...pick(user, ['id', 'operator_id', 'email', 'status', 'role']), invited_at_iso: isoTime(user.invited_at) };
  }
}

function checkRole(role: string): UserRole {
  if (!(USER_ROLES as readonly string[]).includes(role))
    throw tenancyErrors.invalid_role({ message: `Role "${role.slice(0, 32)}" is not one of ${USER_ROLES.join(', ')}.` });
  return role as UserRole;
}

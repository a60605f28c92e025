import { type Actor, type AuditLog, isUlid, isUniqueViolation, newId } from '@gw/kernel';
import type { Knex } from 'knex';
import { tenancyErrors } from '../errors.js';
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


/** Users are invite-only: nobody gets an account by signing in with an unknown e-mail. */
export class UserService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyOperators: OperatorService }) {}

  /**
   * Invites a user of an operator (`operator`: id or name; default the only one) with a role
   * (default `member`, read-only).
   */
  async invite(input: { email: string; operator?: string; role?: UserRole }, actor: Actor): Promise<UserView> {
    const email = normaliseEmail(input.email);
    if (email === undefined) throw tenancyErrors.invalid_email({ message: `"${input.email.slice(0, MAX_EMAIL_LENGTH)}" is not a valid e-mail address.` });
    const role = checkRole(input.role ?? 'member');
    return this.deps.db.transaction(async (trx) => {
      if (await User.query(trx).findOne({ email })) throw tenancyErrors.user_exists();
      const operator = await this.deps.tenancyOperators.resolveForNewProject(input.operator, trx, actor);
      const user = await User.query(trx)
        .insertAndFetch({ id: newId(), operator_id: operator.id, email, status: 'invited', role })
        .catch((error: unknown) => {
          // A concurrent invite of the same address got past the check first.
          throw isUniqueViolation(error, 'email') ? tenancyErrors.user_exists() : error;
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
  async setRole(idOrEmail: string, role: string, actor: Actor, options: { operatorId?: string } = {}): Promise<UserView> {
    const next = checkRole(role);
    return this.deps.db.transaction(async (trx) => {
      const value = idOrEmail.trim();
      const query = User.query(trx).forUpdate();
      const user = await (isUlid(value) ? query.findById(value) : query.findOne({ email: value.toLowerCase() }));
      if (!user || (options.operatorId !== undefined && user.operator_id !== options.operatorId)) throw tenancyErrors.user_not_found();
      if (user.role === next) return this.toView(user);
      const updated = await User.query(trx).patchAndFetchById(user.id, { role: next });
      await this.deps.audit.record({ ...actor, action: 'user.role_set', target: `user:${user.id}`, details: { role: next, previous: user.role } }, trx);
      return this.toView(updated);
    });
  }

  /** The invited or active user with this e-mail, for sign-in; undefined for unknown addresses. */
  async findForSignIn(email: string): Promise<UserView | undefined> {
    const user = await User.query(this.deps.db).findOne({ email: email.trim().toLowerCase() }).whereNot('status', 'disabled');
    return user ? this.toView(user) : undefined;
  }

  /**
   * Records a completed sign-in: an `invited` user becomes `active` (the first sign-in accepts the
   * invitation). Active and disabled users are left as they are.
   */
  async markSignedIn(userId: string, trx?: Knex.Transaction): Promise<void> {
    await User.query(trx ?? this.deps.db).patch({ status: 'active' }).where({ id: userId, status: 'invited' });
  }

  /** The user with this id or e-mail, whatever its status; undefined when there is none. */
  async find(idOrEmail: string): Promise<UserView | undefined> {
    const value = idOrEmail.trim();
    const user = isUlid(value) ? await User.query(this.deps.db).findById(value) : await User.query(this.deps.db).findOne({ email: value.toLowerCase() });
    return user ? this.toView(user) : undefined;
  }

  private toView(user: User): UserView {
    return { id: user.id, operator_id: user.operator_id, email: user.email, status: user.status, role: user.role, invited_at_iso: new Date(user.invited_at).toISOString() };
  }
}

function checkRole(role: string): UserRole {
  if (!(USER_ROLES as readonly string[]).includes(role)) throw tenancyErrors.invalid_role({ message: `Role "${role.slice(0, 32)}" is not one of ${USER_ROLES.join(', ')}.` });
  return role as UserRole;
}

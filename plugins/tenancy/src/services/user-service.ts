import { isUlid, isUniqueViolation, newId, type AuditLog } from '@gw/kernel';
import type { Knex } from 'knex';
import type { Actor } from '../actor.js';
import { tenancyErrors } from '../errors.js';
import { User } from '../models/user.js';
import { MAX_EMAIL_LENGTH, normaliseEmail } from './email-address.js';
import type { OperatorService } from './operator-service.js';

export interface UserView {
  id: string;
  operator_id: string;
  email: string;
  status: User['status'];
  invited_at_iso: string;
}


/** Users are invite-only: nobody gets an account by signing in with an unknown e-mail. */
export class UserService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyOperators: OperatorService }) {}

  async invite(input: { email: string; operator?: string }, actor: Actor): Promise<UserView> {
    const email = normaliseEmail(input.email);
    if (email === undefined) throw tenancyErrors.invalid_email({ message: `"${input.email.slice(0, MAX_EMAIL_LENGTH)}" is not a valid e-mail address.` });
    return this.deps.db.transaction(async (trx) => {
      if (await User.query(trx).findOne({ email })) throw tenancyErrors.user_exists();
      const operator = await this.deps.tenancyOperators.resolveForNewProject(input.operator, trx, actor);
      const user = await User.query(trx)
        .insertAndFetch({ id: newId(), operator_id: operator.id, email, status: 'invited' })
        .catch((error: unknown) => {
          // A concurrent invite of the same address got past the check first.
          throw isUniqueViolation(error, 'email') ? tenancyErrors.user_exists() : error;
        });
      await this.deps.audit.record({ ...actor, action: 'user.invite', target: `user:${user.id}`, details: { email } }, trx);
      return this.toView(user);
    });
  }

  async list(): Promise<UserView[]> {
    return (await User.query(this.deps.db).orderBy('id')).map((u) => this.toView(u));
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
    return { id: user.id, operator_id: user.operator_id, email: user.email, status: user.status, invited_at_iso: new Date(user.invited_at).toISOString() };
  }
}

import { type Actor, CLI_ACTOR } from '@gw/kernel';
import type { UserService, UserView } from '@gw/plugin-tenancy/contract';
import { payoutsErrors } from '../errors.js';

/** The actor of an approval: a person, never a credential. */
export type ApproverActor = Actor & { readonly kind: 'user' };

/** Whether a user may approve now: an administrator whose account is active. */
export function isActiveAdmin(user: Pick<UserView, 'role' | 'status'> | undefined): boolean {
  return user !== undefined && user.role === 'admin' && user.status === 'active';
}

/**
 * The approver's user id when `actor` is an active administrator (`user:<id>`) at the dashboard or
 * the operator CLI (`--as <email>`): the same person counts once whichever way they approve.
 * Anything else (members, API keys, PATs, OAuth, MCP, the CLI without a named user) is 403
 * `approval_forbidden`.
 */
export async function approverId(actor: Actor & { readonly kind?: string }, users: UserService): Promise<string> {
  if (actor.kind !== 'user') throw payoutsErrors.approval_forbidden();
  if ((actor.channel === 'dashboard' || actor.channel === 'cli') && actor.actor.startsWith('user:')) {
    const user = await users.find(actor.actor.slice('user:'.length));
    if (isActiveAdmin(user)) return user!.id;
  }
  throw payoutsErrors.approval_forbidden();
}

/** The dashboard's approval actor for a signed-in user (what its pages pass to `approve`). */
export function dashboardApprover(actor: Actor): ApproverActor {
  return { ...actor, kind: 'user' };
}

/**
 * The operator CLI's approval actor: the active administrator named by `--as <email or id>`,
 * recorded as that user (channel `cli`); 403 `approval_forbidden` for anyone else.
 */
export async function cliApprover(users: UserService, who: string): Promise<ApproverActor> {
  const user = await users.find(who.trim());
  if (!isActiveAdmin(user)) {
    throw payoutsErrors.approval_forbidden({ message: `--as must name an active administrator (${who} is not one).`, details: { as: who } });
  }
  return { actor: `user:${user!.id}`, channel: CLI_ACTOR.channel, kind: 'user' };
}

import { type Actor, CLI_ACTOR } from '@gw/kernel';
import type { UserService } from '@gw/plugin-tenancy/contract';
import { payoutsErrors } from '../errors.js';

/** The actor of an approval: a person, never a credential. */
export type ApproverActor = Actor & { readonly kind: 'user' };

/**
 * The approver's id when `actor` is an administrator: a dashboard user (`user:<id>`, channel
 * `dashboard`) whose role is `admin` and who is active, or the operator at the CLI (`cli`). Anything
 * else (members, API keys, PATs, OAuth, MCP) is 403 `approval_forbidden`.
 */
export async function approverId(actor: Actor & { readonly kind?: string }, users: UserService): Promise<string> {
  if (actor.kind !== 'user') throw payoutsErrors.approval_forbidden();
  if (actor.channel === 'cli' && actor.actor === CLI_ACTOR.actor) return 'cli';
  if (actor.channel === 'dashboard' && actor.actor.startsWith('user:')) {
    const user = await users.find(actor.actor.slice('user:'.length));
    if (user && user.role === 'admin' && user.status === 'active') return user.id;
  }
  throw payoutsErrors.approval_forbidden();
}

/** The dashboard's approval actor for a signed-in user (what its pages pass to `approve`). */
export function dashboardApprover(actor: Actor): ApproverActor {
  return { ...actor, kind: 'user' };
}

/** The operator CLI's approval actor. */
export const CLI_APPROVER: ApproverActor = { ...CLI_ACTOR, kind: 'user' };

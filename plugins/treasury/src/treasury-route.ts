import { type Actor, type AuthContext, defineRoute, restActor, type RouteDefinition } from '@gw/kernel';
import { patHasScope } from '@gw/plugin-tenancy/contract';
import type { Static, TSchema } from 'typebox';
import { treasuryErrors } from './errors.js';
import { PlanIdParams } from './schemas.js';
import type { TreasuryScope } from './services/treasury-scope.js';

/** The scope a treasury read needs. */
export const READ = 'treasury:read';
/** The scope a treasury write needs. */
export const WRITE = 'treasury:write';
/** What every treasury route may answer about its token. */
export const AUTH_ERRORS = ['auth_invalid', 'insufficient_scope', 'project_suspended'];
/** What every treasury write may answer. */
export const WRITE_ERRORS = [...AUTH_ERRORS, 'validation_error', 'treasury_unavailable', 'treasury_plan_not_found'];
/** What an import of a signed file answers, for either kind of plan. */
export const SIGNED_IMPORT_ERRORS = [
  ...WRITE_ERRORS,
  'treasury_signed_mismatch',
  'treasury_signed_incomplete',
  'treasury_signed_unreadable',
  'treasury_signed_other_plan',
  'treasury_plan_not_signable',
  'treasury_plan_already_signed',
];

/** The caller's reach after checking the token's scope (403 `insufficient_scope`). */
export function scopeOf(auth: AuthContext, needed: string): TreasuryScope {
  if (!patHasScope(auth.scopes, needed)) {
    throw treasuryErrors.insufficient_scope({ message: `This route needs the scope ${needed}.`, details: { scope: needed } });
  }
  return { ...(auth.operatorId ? { operatorId: auth.operatorId } : {}), ...(auth.project ? { projectId: auth.project.id } : {}) };
}

/** What a route on one plan does, given the plan id, the caller's reach, its REST actor and the body. */
export type PlanAct<B extends TSchema> = (planId: string, scope: TreasuryScope, actor: Actor, body: Static<B>) => Promise<unknown>;

/**
 * A route on one plan (`…/plans/:plan_id…`, PAT, tag `treasury`) answering what `act` answers with
 * the status of its one declared response: a GET with the caller's `treasury:read` reach, a POST
 * with its `treasury:write` reach.
 */
export function planRoute<B extends TSchema>(route: {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly summary: string;
  readonly description?: string;
  readonly body?: B;
  readonly responses: Readonly<Record<number, TSchema>>;
  readonly errors: readonly string[];
  readonly act: PlanAct<B>;
}): RouteDefinition {
  const { act, ...declared } = route;
  const status = Number(Object.keys(route.responses)[0]);
  return defineRoute({
    ...declared,
    tags: ['treasury'],
    auth: 'pat',
    params: PlanIdParams,
    handler: async ({ auth, params, body, requestId }) => ({
      ...(status === 200 ? {} : { status }),
      body: await act(params.plan_id, scopeOf(auth, route.method === 'GET' ? READ : WRITE), restActor(auth, requestId), body as Static<B>),
    }),
  });
}

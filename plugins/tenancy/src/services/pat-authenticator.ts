import { coreErrors, type AuthContext, type Authenticator, type ErrorSpec } from '@gw/kernel';
import type { Context } from 'koa';
import type { PatService } from './pat-service.js';
import type { ProjectService } from './project-service.js';

/**
 * The `pat` authenticator: `Authorization: Bearer svc_pat_...` for operator routes (the treasury,
 * issue 35). A missing header, another scheme, or an unknown, revoked or expired token is 401
 * `auth_invalid`; a project's signed API key never authenticates here, so such routes are out of
 * a partner's reach. Scopes are checked by the route (`requirePatScope`). A token bound to a
 * project carries that project's principal; a suspended project's token is 403 `project_suspended`.
 */
export function createPatAuthenticator(deps: { tenancyPats: PatService; tenancyProjects: ProjectService }): Authenticator {
  return {
    async authenticate(ctx: Context): Promise<AuthContext> {
      const header = ctx.get('authorization');
      const match = /^Bearer\s+(\S+)$/i.exec(header);
      if (!match) throw coreErrors.auth_invalid({ message: 'This route needs a personal access token: Authorization: Bearer svc_pat_...' });
      const pat = await deps.tenancyPats.verify(match[1]!);
      if (!pat) throw coreErrors.auth_invalid({ message: 'Unknown, revoked or expired personal access token.' });
      const base = { method: 'pat' as const, credentialId: pat.id, scopes: pat.scopes, operatorId: pat.operatorId, actor: `pat:${pat.id}` };
      if (!pat.projectId) return base;
      const project = await deps.tenancyProjects.principal(pat.projectId);
      if (!project) throw coreErrors.auth_invalid({ message: 'The token’s project no longer exists.' });
      if (project.status !== 'active') throw coreErrors.project_suspended();
      return { ...base, project };
    },
  };
}

/**
 * The 403 `insufficient_scope` the catalogue of a plugin whose routes check a PAT's scopes declares
 * (treasury, payouts): one spec, so every owner answers the same.
 */
export const INSUFFICIENT_SCOPE: ErrorSpec = { status: 403, message: 'The token lacks the scope this route needs.' };

/** Whether a PAT's `scopes` grant `needed`; `admin:all` grants every scope (as for MCP tools). */
export function patHasScope(scopes: readonly string[] | undefined, needed: string): boolean {
  return (scopes ?? []).includes(needed) || (scopes ?? []).includes('admin:all');
}

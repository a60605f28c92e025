import { coreErrors, type AuthContext, type Authenticator, type ProjectPrincipal } from '@gw/kernel';
import type { Context } from 'koa';
import { x402Errors } from './errors.js';
import { facilitatorMacMatches, parseFacilitatorToken } from './facilitator-token.js';

const BEARER = /^Bearer\s+(\S+)$/i;

/**
 * The `x402_facilitator` authenticator of the facilitator routes partners point the x402
 * middleware at: `Authorization: Bearer x402_<project id>_<mac>` (`facilitator-token.ts`), valid
 * for any live secret of the project's API key. A missing, malformed or wrong token, or a project
 * without a live key, is 401 `x402_credential_invalid`; only a valid token learns that its project
 * is suspended (403 `project_suspended`).
 */
export function createFacilitatorAuthenticator(deps: {
  tenancyApiKeys: { liveSecrets(projectId: string): Promise<string[]> };
  tenancyProjects: { principal(projectId: string): Promise<ProjectPrincipal | undefined> };
}): Authenticator {
  return {
    async authenticate(ctx: Context): Promise<AuthContext> {
      const presented = BEARER.exec(ctx.get('authorization'))?.[1];
      const token = presented === undefined ? undefined : parseFacilitatorToken(presented);
      if (!token) throw x402Errors.x402_credential_invalid();
      const secrets = await deps.tenancyApiKeys.liveSecrets(token.projectId);
      if (!facilitatorMacMatches(token.projectId, token.mac, secrets)) {
        throw x402Errors.x402_credential_invalid({ message: 'Unknown or outdated facilitator token: derive it from a live API secret of the project.' });
      }
      const project = await deps.tenancyProjects.principal(token.projectId);
      if (!project) throw x402Errors.x402_credential_invalid({ message: 'The token’s project no longer exists.' });
      if (project.status !== 'active') throw coreErrors.project_suspended();
      return { method: 'x402_facilitator', credentialId: project.id, project, actor: `x402_facilitator:${project.id}` };
    },
  };
}

import type { AuthContext, Cradle } from '@gw/kernel';
import { ACCESS_PREFIX } from '@gw/plugin-oauth/contract';
import { PAT_PREFIX } from '@gw/plugin-tenancy/contract';

/** Who calls the MCP tools: the credential and what it reaches. */
export interface McpPrincipal {
  /** `method` is `pat` or `oauth`; `credentialId` the PAT's or access token's id; `scopes` its scopes. */
  readonly auth: AuthContext & { readonly scopes: readonly string[] };
  /** The operator whose projects the credential reaches. */
  readonly operatorId: string;
  /** Set when the credential is bound to one project (a project PAT). */
  readonly projectId: string | null;
  /** Rate-limit identity (spec 8): `pat:<id>` or `oauth:<id>`. */
  readonly rateKey: string;
}

/** Why a bearer token is refused (each is 401 `invalid_token`). */
export type McpCredentialProblem = 'unknown' | 'revoked' | 'expired' | 'lineage_revoked' | 'wrong_resource' | 'user_disabled';

export type McpCredentialResult = { readonly ok: true; readonly principal: McpPrincipal } | { readonly ok: false; readonly problem: McpCredentialProblem };

/**
 * Resolves the bearer token of an MCP call, on every call (nothing is cached, so a revocation
 * takes effect on the next call): a PAT (`svc_pat_`) through the tenancy plugin, an OAuth access
 * token (`svc_oat_`) through the OAuth plugin, which must have been issued for `resource` (spec
 * 5.4 rule 6) to a user who is still enabled.
 */
export class McpCredentials {
  constructor(private readonly deps: Pick<Cradle, 'tenancyPats' | 'tenancyUsers' | 'oauthTokens'>) {}

  async resolve(token: string, resource: string): Promise<McpCredentialResult> {
    if (token.startsWith(PAT_PREFIX)) {
      const pat = await this.deps.tenancyPats.verify(token);
      if (!pat) return { ok: false, problem: 'unknown' };
      return {
        ok: true,
        principal: {
          auth: { method: 'pat', credentialId: pat.id, scopes: pat.scopes, actor: `pat:${pat.id}` },
          operatorId: pat.operatorId,
          projectId: pat.projectId,
          rateKey: `pat:${pat.id}`,
        },
      };
    }
    if (token.startsWith(ACCESS_PREFIX)) {
      const verified = await this.deps.oauthTokens.verifyAccessToken(token);
      if (!verified.ok) return { ok: false, problem: verified.reason };
      if (verified.resource !== resource) return { ok: false, problem: 'wrong_resource' };
      const user = await this.deps.tenancyUsers.find(verified.userId);
      if (!user || user.status === 'disabled') return { ok: false, problem: 'user_disabled' };
      return {
        ok: true,
        principal: {
          auth: { method: 'oauth', credentialId: verified.tokenId, scopes: verified.scopes, actor: `oauth:${verified.tokenId}` },
          operatorId: user.operator_id,
          projectId: null,
          rateKey: `oauth:${verified.tokenId}`,
        },
      };
    }
    return { ok: false, problem: 'unknown' };
  }
}

/** Whether `scopes` grant `needed`; `admin:all` grants every scope (docs/decisions.md). */
export function hasScope(scopes: readonly string[], needed: string): boolean {
  return scopes.includes(needed) || scopes.includes('admin:all');
}

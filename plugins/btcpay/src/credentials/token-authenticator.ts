import type { AuthContext, Authenticator, ProjectPrincipal } from '@gw/kernel';
import type { Context } from 'koa';
import { btcpayErrors } from '../errors.js';
import type { BtcpayApiKeys } from './api-key-service.js';
import { CALLER_STATE_KEY, type BtcpayCaller } from './permissions.js';

/** `token <key>` (BTCPay also reads `Bearer <key>`), the scheme case-insensitive, as BTCPay reads it. */
const TOKEN_HEADER = /^(?:token|bearer)\s+(\S+)/i;
const BASIC_HEADER = /^basic(?:\s|$)/i;

/** The key a request presents in `Authorization`, or undefined. */
export function presentedKey(ctx: Context): string | undefined {
  return TOKEN_HEADER.exec(ctx.get('authorization'))?.[1];
}

/**
 * The `btcpay_token` authenticator of the Greenfield routes: `Authorization: token <key>` with a
 * key of `btcpayApiKeys`. Failures are 401 `unauthenticated` with BTCPay's reasons. BTCPay also
 * accepts a user's password by Basic auth; this gateway has no passwords (its people sign in by
 * e-mail), so Basic is refused the same way, naming what to use instead. The caller (the key, its
 * operator and permissions) is left for `principalOf`; what it may reach is decided per route by
 * `requireStore`.
 */
export function createTokenAuthenticator(deps: {
  btcpayApiKeys: Pick<BtcpayApiKeys, 'authenticate'>;
  tenancyProjects: { principal(projectId: string): Promise<ProjectPrincipal | undefined> };
}): Authenticator {
  return {
    async authenticate(ctx: Context): Promise<AuthContext> {
      const header = ctx.get('authorization');
      if (BASIC_HEADER.test(header)) {
        throw btcpayErrors.btcpay_unauthenticated({
          message: 'Basic authentication is not supported by this server: use an API key (Authorization: token <key>).',
        });
      }
      const key = presentedKey(ctx);
      if (key === undefined) throw btcpayErrors.btcpay_unauthenticated({ message: 'Authentication is required for accessing this endpoint' });
      const principal = await deps.btcpayApiKeys.authenticate(key);
      if (!principal) throw btcpayErrors.btcpay_unauthenticated({ message: 'ApiKey authentication failed: Unknown API Key' });
      const caller: BtcpayCaller = { ...principal, findProject: (projectId) => deps.tenancyProjects.principal(projectId) };
      ctx.state[CALLER_STATE_KEY] = caller;
      return { method: 'btcpay_token', credentialId: principal.keyId, operatorId: principal.operatorId, actor: `btcpay_key:${principal.keyId}` };
    },
  };
}

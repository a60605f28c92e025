import { defineRoute, type RouteDefinition } from '@gw/kernel';
import type { BtcpayConfig } from '../config.js';
import { btcpayErrors } from '../errors.js';
import type { BtcpayApiKeys } from './api-key-service.js';
import { GREENFIELD_ROUTE, greenfieldActor, greenfieldPath } from './greenfield-route.js';
import { principalOf } from './permissions.js';
import { presentedKey } from './token-authenticator.js';

/**
 * `GET /api/v1/api-keys/current`: the key that authenticated the call as BTCPay's `ApiKeyData`
 * (`apiKey` is the key as presented: only its hash is stored); `DELETE` revokes it (audited, actor
 * the key itself) and answers the same.
 */
export function apiKeyRoutes(deps: { btcpayConfig: BtcpayConfig; btcpayApiKeys: BtcpayApiKeys }): RouteDefinition[] {
  const path = deps.btcpayConfig.pathPrefix;
  const current = greenfieldPath(path, '/api/v1/api-keys/current');
  return [
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: current,
      summary: 'BTCPay Greenfield: the current API key and its permissions',
      handler: async ({ ctx }) => {
        const caller = principalOf(ctx);
        return { body: { apiKey: presentedKey(ctx), label: caller.label, permissions: caller.permissions } };
      },
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'DELETE',
      path: current,
      summary: 'BTCPay Greenfield: revoke the current API key',
      handler: async ({ ctx, auth, requestId }) => {
        const caller = principalOf(ctx);
        const key = presentedKey(ctx);
        if (key === undefined) throw btcpayErrors.btcpay_api_key_not_found();
        const revoked = await deps.btcpayApiKeys.revokeCurrent(caller, greenfieldActor(auth, requestId));
        return { body: { apiKey: key, label: revoked.label, permissions: revoked.permissions } };
      },
    }),
  ];
}

import type { Actor, AuthContext, RouteDefinition } from '@gw/kernel';

/**
 * What every Greenfield route shares: the `btcpay_token` authenticator, and no place in this
 * gateway's own OpenAPI document (BTCPay's document describes these calls; docs/btcpay-compatibility.md
 * lists them).
 */
export const GREENFIELD_ROUTE = { auth: 'btcpay_token', hidden: true, tags: ['btcpay'] } as const satisfies Partial<RouteDefinition>;

/** A Greenfield path under the configured prefix: `greenfieldPath('/btcpay', '/api/v1/stores')`. */
export function greenfieldPath(pathPrefix: string, path: `/${string}`): string {
  return `${pathPrefix}${path}`;
}

/** The audit actor of a Greenfield call: the key (`btcpay_key:<id>`), channel `btcpay`. */
export function greenfieldActor(auth: AuthContext, requestId: string): Actor {
  return { actor: auth.actor, channel: 'btcpay', requestId };
}

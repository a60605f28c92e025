import { defineRoute, type RouteDefinition } from '@gw/kernel';
import type { BtcpayConfig } from '../config.js';
import { GREENFIELD_ROUTE, greenfieldPath } from './greenfield-route.js';
import type { StorePaymentMethods } from './store-payment-methods.js';

/**
 * The BTCPay Server release whose Greenfield document this API follows, reported as the server's
 * version: the WooCommerce plugin offers refunds only to servers of 1.7.6 or later.
 */
export const GREENFIELD_VERSION = '2.4.1';

/**
 * `GET /api/v1/server/info` (any key) and `GET /api/v1/health` (no key). The gateway is always
 * "fully synchronised" in BTCPay's sense: invoices can be created whatever the chains' scan heights,
 * the watchers catch up on their own (their lag is on `/readyz` and the dashboard), so a shop
 * plugin has nothing to wait for.
 */
export function serverRoutes(deps: { btcpayConfig: BtcpayConfig; btcpayStorePaymentMethods: StorePaymentMethods }): RouteDefinition[] {
  const path = (p: `/${string}`) => greenfieldPath(deps.btcpayConfig.pathPrefix, p);
  return [
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/server/info'),
      summary: 'BTCPay Greenfield: server information (version, supported payment methods, sync state)',
      handler: async () => ({
        body: {
          version: GREENFIELD_VERSION,
          supportedPaymentMethods: deps.btcpayStorePaymentMethods.supported(),
          fullySynched: true,
          syncStatus: [],
        },
      }),
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      auth: 'none',
      method: 'GET',
      path: path('/api/v1/health'),
      summary: 'BTCPay Greenfield: health',
      handler: async () => ({ body: { synchronized: true } }),
    }),
  ];
}

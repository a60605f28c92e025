import { service, withDeps } from '@gw/kernel';
import type {} from '@gw/plugin-tenancy/contract';
import type {} from '@gw/plugin-wallets/contract';
import type { BtcpayArea } from '../area.js';
import { apiKeyRoutes } from './api-key-routes.js';
import { BtcpayApiKeys } from './api-key-service.js';
import { greenfieldErrorFormat } from './error-format.js';
import { serverRoutes } from './server-routes.js';
import { StorePaymentMethods } from './store-payment-methods.js';
import { storeRoutes } from './store-routes.js';
import { createTokenAuthenticator } from './token-authenticator.js';
import { btcpayUserAccessEnders } from './user-access.js';

/** API keys (`Authorization: token`), permissions, the Greenfield error shape, server info and health, the current key, stores and their payment methods. */
export const credentialsArea: BtcpayArea = {
  services: () => ({
    btcpayApiKeys: service(['db', 'audit', 'tenancyProjects'], (deps) => new BtcpayApiKeys(deps)),
    btcpayStorePaymentMethods: service(['chains', 'walletsWallets', 'sessionsCoins'], (deps) => new StorePaymentMethods(deps)),
  }),
  authenticators: withDeps(['btcpayApiKeys', 'tenancyProjects'], (deps) => ({ btcpay_token: createTokenAuthenticator(deps) })),
  errorFormats: withDeps(['btcpayConfig'], (deps) => [greenfieldErrorFormat(deps.btcpayConfig.pathPrefix)]),
  routes: withDeps(['btcpayConfig', 'btcpayApiKeys', 'btcpayStorePaymentMethods', 'tenancyProjects'], (deps) => [
    ...serverRoutes(deps),
    ...apiKeyRoutes(deps),
    ...storeRoutes(deps),
  ]),
  userAccessEnders: btcpayUserAccessEnders,
};

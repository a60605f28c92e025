import { type Declared, type UserAccessEnder, withDeps } from '@gw/kernel';

/**
 * What ends with a user's access (`PluginDefinition.userAccessEnders`): disabling a user revokes
 * the Greenfield API keys they approved, as it revokes their personal access tokens.
 */
export const btcpayUserAccessEnders: Declared<readonly UserAccessEnder[]> = withDeps(['btcpayApiKeys'], (deps) => [
  { name: 'btcpay_api_keys', end: (userId, scope, trx) => deps.btcpayApiKeys.endForUser(userId, scope, trx) },
]);

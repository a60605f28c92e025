import { service } from '@gw/kernel';
import type {} from '@gw/plugin-tenancy/contract';
import type { BtcpayArea } from '../area.js';
import { BtcpayApiKeys } from './api-key-service.js';

/** API keys (`Authorization: token`), permissions, the Greenfield error shape, server info and health, the current key, stores and their payment methods. */
export const credentialsArea: BtcpayArea = {
  services: () => ({
    btcpayApiKeys: service(['db', 'audit', 'tenancyProjects'], (deps) => new BtcpayApiKeys(deps)),
  }),
};

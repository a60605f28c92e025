import type { BtcpayArea } from '../area.js';

/** API keys (`Authorization: token`), permissions, the Greenfield error shape, server info and health, the current key, stores and their payment methods. */
export const credentialsArea: BtcpayArea = {};

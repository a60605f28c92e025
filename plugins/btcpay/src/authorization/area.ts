import { dashboardPages } from '@gw/plugin-dashboard/contract';
import type { BtcpayArea } from '../area.js';
import { authorizeRoutes } from './authorize-route.js';
import { btcpayKeyCommands } from './cli.js';
import { KEYS_PAGE_DEPS } from './approval.js';
import { btcpayKeysPage } from './keys-page.js';

/** The API-key authorization flow (`/api-keys/authorize`), the dashboard page that lists and revokes keys, the operator CLI. */
export const authorizationArea: BtcpayArea = {
  routes: authorizeRoutes,
  contributes: [dashboardPages(KEYS_PAGE_DEPS, [btcpayKeysPage])],
  cli: btcpayKeyCommands,
};

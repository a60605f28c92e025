import type { BtcpayArea } from '../area.js';

/** The API-key authorization flow (`/api-keys/authorize`), the dashboard page that lists and revokes keys, the operator CLI. */
export const authorizationArea: BtcpayArea = {};

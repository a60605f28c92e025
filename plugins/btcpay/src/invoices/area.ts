import type { BtcpayArea } from '../area.js';

/** Invoices as checkout sessions: create, get, list, payment methods, mark status; the status table. */
export const invoicesArea: BtcpayArea = {};

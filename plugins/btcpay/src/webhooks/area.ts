import type { BtcpayArea } from '../area.js';

/** Greenfield webhooks: create, get, update, delete; BTCPay-Sig deliveries through the outbox; the invoice events. */
export const webhooksArea: BtcpayArea = {};

import type { BtcpayArea } from '../area.js';

/** Refunds of an invoice through the payouts plugin, answered as pull payments. */
export const refundsArea: BtcpayArea = {};

import { service, withDeps } from '@gw/kernel';
import { m0003BtcpayPullPayments } from '../../migrations/0003_btcpay_pull_payments.js';
import type { BtcpayArea } from '../area.js';
import { coinNaming } from '../invoices/coin-naming.js';
import { PullPayments } from './pull-payments.js';
import { refundRoutes } from './routes.js';

/** Refunds of an invoice through the payouts plugin, answered as pull payments (a sandbox project's pull payments go with the invoices area's purger). */
export const refundsArea: BtcpayArea = {
  services: () => ({
    btcpayPullPayments: service(
      ['db', 'secretBox', 'kernelConfig', 'chains', 'sessionsCheckout', 'invoicesService', 'payoutsItems'],
      (deps) => new PullPayments({ ...deps, btcpayCoins: coinNaming(deps.chains) }),
    ),
  }),
  routes: withDeps(['btcpayConfig', 'btcpayPullPayments', 'db'], (deps) => refundRoutes(deps)),
  migrations: [m0003BtcpayPullPayments],
};

import { contribute, service, withDeps } from '@gw/kernel';
import { SANDBOX_PROJECT_PURGERS } from '@gw/plugin-sandbox/contract';
import { m0003BtcpayPullPayments } from '../../migrations/0003_btcpay_pull_payments.js';
import type { BtcpayArea } from '../area.js';
import { provisionalNaming } from './provisional-naming.js';
import { PULL_PAYMENTS_TABLE, PullPayments } from './pull-payments.js';
import { refundRoutes } from './routes.js';

/** Refunds of an invoice through the payouts plugin, answered as pull payments. */
export const refundsArea: BtcpayArea = {
  services: () => ({
    btcpayPullPayments: service(
      ['db', 'secretBox', 'kernelConfig', 'chains', 'sessionsCheckout', 'invoicesService', 'payoutsItems'],
      (deps) => new PullPayments({ ...deps, btcpayCoins: provisionalNaming(deps.chains) }),
    ),
  }),
  routes: withDeps(['btcpayConfig', 'btcpayPullPayments', 'db'], (deps) => refundRoutes(deps)),
  contributes: [
    // A sandbox project's reset or deletion removes its pull payments (its refunds go with the payouts plugin's purge).
    contribute(
      SANDBOX_PROJECT_PURGERS,
      withDeps([], () => [
        {
          name: 'btcpay_pull_payments',
          purge: (trx, projectId) => trx(PULL_PAYMENTS_TABLE).where('project_id', projectId).delete(),
        },
      ]),
    ),
  ],
  migrations: [m0003BtcpayPullPayments],
};

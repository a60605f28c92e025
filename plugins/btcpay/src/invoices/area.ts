import { service } from '@gw/kernel';
import { m0005BtcpayInvoicesArchive } from '../../migrations/0005_btcpay_invoices_archive.js';
import type { BtcpayArea } from '../area.js';
import { BtcpayInvoices } from './btcpay-invoices.js';
import { coinNaming } from './coin-naming.js';
import { invoiceRoutes } from './routes.js';
import { btcpaySandboxPurger } from './sandbox-purger.js';

/** Invoices as checkout sessions: create, get, list, payment methods, mark status, archive; the status table; the sandbox purge. */
export const invoicesArea: BtcpayArea = {
  services: () => ({
    btcpayInvoices: service(
      ['db', 'chains', 'audit', 'sessionsCheckout', 'invoicesService', 'btcpayWebhookEvents'],
      (deps) => new BtcpayInvoices(deps, coinNaming(deps.chains)),
    ),
  }),
  routes: invoiceRoutes,
  contributes: [btcpaySandboxPurger],
  migrations: [m0005BtcpayInvoicesArchive],
};

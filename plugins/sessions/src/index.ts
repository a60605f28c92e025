import { contribute, definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { INVOICE_OBSERVERS, invoicePageParts } from '@gw/plugin-invoices/contract';
import { dashboardPages } from '@gw/plugin-dashboard/contract';
import { m0001Sessions } from '../migrations/0001_sessions.js';
import { m0002SessionLocale } from '../migrations/0002_session_locale.js';
import { SessionsConfigSchema } from './config.js';
import { SESSIONS_EXPORTS } from './contract.js';
import { sessionsErrors } from './errors.js';
import { sessionsCommands } from './cli.js';
import { CHECKOUT_SESSIONS_PAGE_DEPS, checkoutSessionsPage } from './dashboard/checkout-sessions-page.js';
import { INVOICE_SESSION_DEPS, invoiceSessionPart } from './dashboard/invoice-session-part.js';
import { PAYMENT_LINKS_PAGE_DEPS, paymentLinksPage } from './dashboard/payment-links-page.js';
import { sessionsMcpTools } from './mcp-tools.js';
import { sessionsJobs } from './jobs.js';
import { noticeEmailJob } from './mail/notice-email.js';
import { receiptEmailJob } from './mail/receipt-email.js';
import { payerRoutes } from './pages/payer-routes.js';
import { sessionOrderPanels } from './pages/session-panel.js';
import { sessionsRoutes } from './routes.js';
import { CheckoutSessionsService } from './services/checkout-sessions.js';
import { InvoiceableCoins } from './services/invoiceable-coins.js';
import { sessionInvoiceObserver } from './services/invoice-observer.js';
import { LatePayments } from './services/late-payments.js';
import { PaymentLinksService } from './services/payment-links.js';
import { sandboxProjectPurger } from './services/sandbox-purger.js';
import { SessionCloser } from './services/session-closer.js';
import { SessionOpener } from './services/session-opener.js';
import { SessionStore } from './services/session-store.js';

/**
 * Checkout sessions and payment links (issue 38): a price in any currency the payer pays in the
 * coin they pick, an invoice created only by the pick; reusable links that open a session per
 * payer. The plugin follows its invoices through `INVOICE_OBSERVERS` and credits payments to
 * abandoned addresses from the watchers' orphan inbox.
 */
export const sessionsPlugin = definePlugin({
  id: 'sessions',
  dependsOn: ['tenancy', 'wallets', 'rates', 'invoices', 'watchers', 'checkout', 'oauth'],
  exports: SESSIONS_EXPORTS,
  config: SessionsConfigSchema,
  errors: [sessionsErrors],
  migrations: [m0001Sessions, m0002SessionLocale],
  register: ({ config }) => ({
    sessionsConfig: serviceValue(config),
    sessionsStore: service(['invoiceEvents', 'kernelConfig', 'extensions'], (deps) => new SessionStore(deps)),
    sessionsCoins: service(['chains', 'walletsWallets', 'invoicesPolicies'], (deps) => new InvoiceableCoins(deps)),
    sessionsOpener: service(
      ['db', 'audit', 'chains', 'tenancyProjects', 'invoicesService', 'ratesService', 'sessionsStore', 'sessionsCoins', 'sessionsConfig'],
      (deps) => new SessionOpener(deps),
    ),
    sessionsCloser: service(['db', 'audit', 'invoicesService', 'sessionsStore'], (deps) => new SessionCloser(deps)),
    sessionsCheckout: service(
      ['db', 'audit', 'chains', 'rateLimiter', 'tenancyProjects', 'invoicesService', 'sessionsStore', 'sessionsOpener', 'sessionsCloser'],
      (deps) => new CheckoutSessionsService(deps),
    ),
    sessionsLinks: service(
      ['db', 'audit', 'chains', 'tenancyProjects', 'ratesService', 'sessionsStore', 'sessionsCoins', 'sessionsConfig', 'sessionsOpener'],
      (deps) => new PaymentLinksService(deps),
    ),
    sessionsLatePayments: service(['db', 'invoicesService', 'watchersOrphans', 'logger'], (deps) => new LatePayments(deps)),
  }),
  contributes: [
    // Completion, late payments and notices follow the invoices' statuses, in their transactions.
    contribute(
      INVOICE_OBSERVERS,
      withDeps(['chains', 'jobs', 'audit', 'sessionsStore'], (deps) => [sessionInvoiceObserver(() => deps)]),
    ),
    // A sandbox project's reset or deletion purges its sessions and links.
    sandboxProjectPurger,
    dashboardPages(PAYMENT_LINKS_PAGE_DEPS, [paymentLinksPage]),
    dashboardPages(CHECKOUT_SESSIONS_PAGE_DEPS, [checkoutSessionsPage]),
    // An invoice's dashboard page names the checkout session it belongs to.
    invoicePageParts(INVOICE_SESSION_DEPS, [invoiceSessionPart]),
    // The checkout page of a session's invoice shows the order and links back to the session's page.
    sessionOrderPanels,
  ],
  // The partner API, and the payer's pages (session, link and its QR code, receipt).
  routes: withDeps([...sessionsRoutes.deps, ...payerRoutes.deps], (deps) => [...sessionsRoutes.create(deps), ...payerRoutes.create(deps)]),
  // Expiry and late payments, and the payer's mails (receipt, partial-payment notice).
  jobs: withDeps([...sessionsJobs.deps, ...receiptEmailJob.deps, ...noticeEmailJob.deps], (deps) => [
    ...sessionsJobs.create(deps),
    receiptEmailJob.create(deps),
    noticeEmailJob.create(deps),
  ]),
  mcpTools: sessionsMcpTools,
  cli: sessionsCommands,
});

export * from './contract.js';
export { sessionsErrors } from './errors.js';
export { SessionsConfigSchema, type SessionsConfig } from './config.js';
export * from './job-names.js';
export { LINK_PAGE_PATH, RECEIPT_PAGE_PATH, SESSION_PAGE_PATH } from './services/session-store.js';
export { lateExternalId, pickExternalId } from './services/external-ids.js';

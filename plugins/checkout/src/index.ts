import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { dashboardPages } from '@gw/plugin-dashboard/contract';
import { BRANDING_PAGE_DEPS, brandingPage } from './dashboard/branding-page.js';
import { CHECKOUT_EXPORTS } from './contract.js';
import { m0001Checkout } from '../migrations/0001_checkout.js';
import { m0002StreamSlots } from '../migrations/0002_stream_slots.js';
import { checkoutCommands } from './cli.js';
import { CheckoutConfigSchema } from './config.js';
import { checkoutRoutes } from './routes.js';
import { BrandingService } from './services/branding-service.js';
import { StatusHub } from './services/status-hub.js';
import { StreamLimiter } from './services/stream-limiter.js';

/**
 * The hosted checkout page (issue 21): `{base_url}/checkout/{token}` shows the payer what to send
 * where (amount, network, address, QR code, memo), a countdown and the live status (server-sent
 * events backed by `invoices.changed` notifications, long polling, reload without JavaScript), in
 * eight languages, light or dark, with the project's branding; sandbox invoices get a banner and
 * simulation buttons. Its page shell, languages and formatting serve every payer page
 * (`@gw/plugin-checkout/contract`). See plugins/checkout/README.md.
 */
export const checkoutPlugin = definePlugin({
  id: 'checkout',
  dependsOn: ['tenancy', 'invoices'],
  exports: CHECKOUT_EXPORTS,
  config: CheckoutConfigSchema,
  migrations: [m0001Checkout, m0002StreamSlots],
  register: ({ config, logger }) => ({
    checkoutConfig: serviceValue(config),
    checkoutBranding: service(['db', 'audit', 'tenancyProjects'], (deps) => new BrandingService(deps)),
    checkoutStatusHub: service(
      ['notifications', 'invoicesService'],
      (deps) =>
        new StatusHub({ notifications: deps.notifications, invoicesService: deps.invoicesService, logger, heartbeatMs: config.heartbeatSeconds * 1000 }),
      { dispose: (hub) => hub.close() },
    ),
    checkoutStreamLimiter: service(['db'], (deps) => new StreamLimiter({ db: deps.db, logger, perClient: config.streamsPerClient }), {
      dispose: (limiter) => limiter.close(),
    }),
  }),
  // Its dashboard pages (ADR 0011).
  contributes: [dashboardPages(BRANDING_PAGE_DEPS, [brandingPage])],
  routes: checkoutRoutes,
  cli: checkoutCommands,
  stop: withDeps(['checkoutStatusHub', 'checkoutStreamLimiter'], async (deps) => {
    await deps.checkoutStatusHub.close();
    await deps.checkoutStreamLimiter.close();
  }),
});

export * from './contract.js';
export { CheckoutConfigSchema, type CheckoutConfig } from './config.js';
export { BrandingService, logoType, type Branding, type BrandingPatch } from './services/branding-service.js';
export { StatusHub } from './services/status-hub.js';
export { StreamLimiter, STALE_SECONDS } from './services/stream-limiter.js';
export { CHECKOUT_MESSAGES, type CheckoutMessageKey } from './page/checkout-messages.js';
export { SHELL_MESSAGES } from './page/payer-page.js';
export { payerStatus, type PayerStatus } from './page/payer-status.js';
export { CHECKOUT_ASSETS } from './page/payer-assets.js';
export { type StatusUpdate } from './routes.js';

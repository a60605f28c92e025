/**
 * The contract of the checkout plugin (the hosted checkout page): the services it registers and
 * what other plugins may import from it (`@gw/plugin-checkout/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { CheckoutConfig } from './config.js';
import type { BrandingService } from './services/branding-service.js';
import type { StatusHub } from './services/status-hub.js';
import type { StreamLimiter } from './services/stream-limiter.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly checkoutConfig: CheckoutConfig;
    readonly checkoutBranding: BrandingService;
    /** Fans invoice changes out to this process's open status streams. */
    readonly checkoutStatusHub: StatusHub;
    readonly checkoutStreamLimiter: StreamLimiter;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const CHECKOUT_EXPORTS: readonly ServiceName[] = [];

export { CHECKOUT_PANELS, type CheckoutPanel, type CheckoutPanelInput } from './panels.js';
export { chooseLocale, formatDecimal, LOCALE_NAMES, LOCALES, type Locale } from './page/i18n.js';
/** For other payer pages (issue 38: the sessions plugin's link QR code and partial-payment notice). */
export { qrSvg } from './page/qr-code.js';
export { payerStatus, type PayerStatus } from './page/payer-status.js';

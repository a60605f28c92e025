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
export const CHECKOUT_EXPORTS: readonly ServiceName[] = ['checkoutBranding'];

export type { Branding, BrandingService } from './services/branding-service.js';
export { CHECKOUT_PANELS, readingPanel, type CheckoutPanel, type CheckoutPanelInput } from './panels.js';

// The payer pages' toolkit: every page a payer sees (the checkout page, the sessions plugin's
// pages, the refund claim page) speaks the same languages, chooses and switches them the same
// way, formats amounts alike and shares one shell (README, "Payer pages").
export {
  defineMessages,
  isLocale,
  LOCALE_NAMES,
  LOCALES,
  placeholderMismatches,
  type Catalogue,
  type Locale,
  type Messages,
  type MessageValues,
  type Translations,
} from './page/i18n.js';
export { chooseLocale } from './page/locale-choice.js';
export {
  PAYER_FORM,
  PAYER_PAGE_QUERY,
  PAYER_TOKEN_PARAMS,
  payerFormRoute,
  payerLocale,
  payerPageRoute,
  type PayerRouteHandler,
} from './page/payer-page-route.js';
export { currencyDecimals, formatDecimal, formatPrice, formatTime, INTL_LOCALES } from './page/formatting.js';
export { LANGUAGE_TAGS, languageSwitch, payerDocumentStart, payerPage, payerPageHeaders, type PayerPageInput } from './page/payer-page.js';
/** For other payer pages (issue 38: the sessions plugin's link QR code and partial-payment notice). */
export { qrSvg } from './page/qr-code.js';
export { payerStatus, type PayerStatus } from './page/payer-status.js';

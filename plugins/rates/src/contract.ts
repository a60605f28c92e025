/**
 * The contract of the rates plugin (exchange rates from the configured providers): the services it registers and
 * what other plugins may import from it (`@gw/plugin-rates/contract`), nothing else (ADR 0009).
 * Services are exported as types: other plugins receive them from the container, declared
 * with `withDeps`/`service`, and never construct them.
 */
import type { ServiceName } from '@gw/kernel';
import type { PriceCatalogue } from './assets.js';
import type { RatesConfig } from './config.js';
import type { RatesFetchCounter, RatesHeldCounter } from './metrics.js';
import type { RateService } from './services/rate-service.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly ratesConfig: RatesConfig;
    readonly ratesService: RateService;
    readonly ratesFetchCounter: RatesFetchCounter;
    readonly ratesHeldCounter: RatesHeldCounter;
    /** The price assets of the enabled coins and the providers' ids for them (from the chains' definitions). */
    readonly ratesCatalogue: PriceCatalogue;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const RATES_EXPORTS: readonly ServiceName[] = ['ratesService'];

export { isRateUnavailable, RATE_QUOTE_UNAVAILABLE, RATE_UNAVAILABLE_RETRY_AFTER } from './errors.js';
export { FIAT_CURRENCIES, fiatDecimals, isFiatCurrency, type FiatCurrency } from './fiat.js';
export type { RateQuote, RateService } from './services/rate-service.js';

import { PriceCatalogue } from './assets.js';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { RATES_DASHBOARD_DEPS, ratesRefreshPage, ratesSection } from './dashboard/rates-section.js';
import { RATES_EXPORTS } from './contract.js';
import { ratesReadiness } from './readiness.js';
import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { m0001Rates } from '../migrations/0001_rates.js';
import { ratesCommands } from './cli.js';
import { RatesConfigSchema, type RatesConfig } from './config.js';
import { ratesJobs } from './jobs.js';
import { createFetchCounter, registerRateGauges } from './metrics.js';
import { RateService } from './services/rate-service.js';

/**
 * Rates: USD exchange rates for the enabled coins (by the price asset their definitions name), from CoinGecko, Kraken and operator-set
 * fixed rates in a configurable order of preference, cached in PostgreSQL for every instance,
 * refreshed by the `rates.refresh` job, fetched synchronously on a cold cache, and refused (500
 * `internal_error`, see `isRateUnavailable`) when nothing fresher than `maxAgeSeconds` exists.
 */
export const ratesPlugin = definePlugin({
  id: 'rates',
  exports: RATES_EXPORTS,
  config: RatesConfigSchema,
  migrations: [m0001Rates],
  register: ({ config }) => ({
    ratesConfig: serviceValue(config),
    ratesFetchCounter: service(['metrics'], ({ metrics }) => createFetchCounter(metrics.registry)),
    ratesCatalogue: service(['chains', 'ratesConfig'], ({ chains, ratesConfig }) =>
      checkedCatalogue(PriceCatalogue.of(chains), chains.knownPriceSymbols(), ratesConfig),
    ),
    ratesService: service(
      ['db', 'logger', 'ratesConfig', 'ratesCatalogue', 'ratesFetchCounter'],
      (deps) =>
        new RateService({
          db: deps.db,
          logger: deps.logger.child({ plugin: 'rates' }),
          config: deps.ratesConfig,
          catalogue: deps.ratesCatalogue,
          fetchCounter: deps.ratesFetchCounter,
        }),
    ),
  }),
  // Its dashboard sections (ADR 0011).
  contributes: [dashboardPages(RATES_DASHBOARD_DEPS, [ratesRefreshPage]), pageSections(RATES_DASHBOARD_DEPS, [ratesSection])],
  jobs: ratesJobs,
  readiness: ratesReadiness,
  cli: ratesCommands,
  start: withDeps(['metrics', 'db', 'logger', 'ratesConfig', 'ratesFetchCounter', 'ratesCatalogue'], async (deps) => {
    // Resolved at start so a fixed rate or Kraken pair for an asset no enabled coin has stops it.
    void deps.ratesCatalogue;
    registerRateGauges(deps.metrics.registry, deps);
    // Resolved eagerly so the counter is on /metrics before the first fetch.
    void deps.ratesFetchCounter;
  }),
});

export * from './contract.js';
export { PriceCatalogue, providerIdOf, providerKeysOf, type Asset } from './assets.js';
export { RatesConfigSchema, type RatesConfig, type ProviderId } from './config.js';
export { isRateUnavailable, RATE_UNAVAILABLE_RETRY_AFTER } from './errors.js';
export { REFRESH_JOB } from './jobs.js';
export { RateService, providersFromConfig, type RateQuote, type RateServiceDeps, type ProviderRefresh, type CachedQuoteView } from './services/rate-service.js';
export { ProviderError, type RateProvider, type ProviderRate } from './providers/provider.js';
export { CoinGeckoProvider, type CoinGeckoOptions } from './providers/coingecko.js';
export { KrakenProvider, type KrakenOptions, type KrakenPair } from './providers/kraken.js';
export { FixedProvider } from './providers/fixed.js';

/**
 * Throws an Error naming the key when config prices an asset no coin of the build is priced as (a
 * typo). An asset of a disabled chain only is accepted and unused: turning a chain off does not
 * require editing the rates config.
 */
function checkedCatalogue(catalogue: PriceCatalogue, buildSymbols: ReadonlySet<string>, config: RatesConfig): PriceCatalogue {
  for (const key of ['fixed', 'kraken.pairs'] as const) {
    const entries = key === 'fixed' ? config.fixed : config.kraken.pairs;
    for (const symbol of Object.keys(entries)) {
      if (!buildSymbols.has(symbol))
        throw new Error(`plugins.rates.${key}.${symbol}: no coin of this build is priced as ${symbol} (assets: ${[...buildSymbols].join(', ')})`);
    }
  }
  return catalogue;
}

import { ratesReadiness } from './readiness.js';
import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { m0001Rates } from '../migrations/0001_rates.js';
import { ratesCommands } from './cli.js';
import { RatesConfigSchema } from './config.js';
import { ratesJobs } from './jobs.js';
import { createFetchCounter, registerRateGauges } from './metrics.js';
import { RateService } from './services/rate-service.js';

/**
 * Rates: USD exchange rates for the fifteen coins (by asset), from CoinGecko, Kraken and operator-set
 * fixed rates in a configurable order of preference, cached in PostgreSQL for every instance,
 * refreshed by the `rates.refresh` job, fetched synchronously on a cold cache, and refused (500
 * `internal_error`, see `isRateUnavailable`) when nothing fresher than `maxAgeSeconds` exists.
 */
export const ratesPlugin = definePlugin({
  id: 'rates',
  config: RatesConfigSchema,
  migrations: [m0001Rates],
  register: ({ config }) => ({
    ratesConfig: serviceValue(config),
    ratesFetchCounter: service(['metrics'], ({ metrics }) => createFetchCounter(metrics.registry)),
    ratesService: service(
      ['db', 'logger', 'ratesConfig', 'ratesFetchCounter'],
      (deps) => new RateService({ db: deps.db, logger: deps.logger.child({ plugin: 'rates' }), config: deps.ratesConfig, fetchCounter: deps.ratesFetchCounter }),
    ),
  }),
  jobs: ratesJobs,
  readiness: ratesReadiness,
  cli: ratesCommands,
  start: withDeps(['metrics', 'db', 'logger', 'ratesConfig', 'ratesFetchCounter'], async (deps) => {
    registerRateGauges(deps.metrics.registry, deps);
    // Resolved eagerly so the counter is on /metrics before the first fetch.
    void deps.ratesFetchCounter;
  }),
});

export * from './contract.js';
export { ASSETS, COIN_ASSET, assetOf, type Asset } from './assets.js';
export { RatesConfigSchema, type RatesConfig, type ProviderId } from './config.js';
export { isRateUnavailable, RATE_UNAVAILABLE_RETRY_AFTER } from './errors.js';
export { toPlainDecimal } from './decimal.js';
export { REFRESH_JOB } from './jobs.js';
export { RateService, providersFromConfig, type RateQuote, type RateServiceDeps, type ProviderRefresh, type CachedQuoteView } from './services/rate-service.js';
export { ProviderError, type RateProvider, type ProviderRate } from './providers/provider.js';
export { CoinGeckoProvider, COINGECKO_IDS, type CoinGeckoOptions } from './providers/coingecko.js';
export { KrakenProvider, KRAKEN_PAIRS, type KrakenOptions, type KrakenPair } from './providers/kraken.js';
export { FixedProvider } from './providers/fixed.js';

import { PriceCatalogue } from './assets.js';
import { dashboardPages, pageSections } from '@gw/plugin-dashboard/contract';
import { RATES_DASHBOARD_DEPS, ratesRefreshPage, ratesSection } from './dashboard/rates-section.js';
import { RATES_EXPORTS } from './contract.js';
import { ratesReadiness } from './readiness.js';
import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { m0001Rates } from '../migrations/0001_rates.js';
import { m0002RatesHeld } from '../migrations/0002_rates_held.js';
import { m0003RatesHeldRepeats } from '../migrations/0003_rates_held_repeats.js';
import { ratesCommands } from './cli.js';
import { RatesConfigSchema, type RatesConfig } from './config.js';
import { ratesJobs } from './jobs.js';
import { createFetchCounter, createHeldCounter, registerRateGauges } from './metrics.js';
import { ratesErrors } from './errors.js';
import { FIAT_CURRENCIES, USD } from './fiat.js';
import { RateService } from './services/rate-service.js';

/**
 * Rates: USD exchange rates for the enabled coins (by the price asset their definitions name) and
 * for fiat currencies, from CoinGecko, Kraken and operator-set fixed rates in a configurable order
 * of preference, cached in PostgreSQL for every instance, refreshed by the `rates.refresh` job,
 * fetched synchronously on a cold cache, and refused (500 `internal_error`, see
 * `isRateUnavailable`) when nothing fresher than `maxAgeSeconds` exists. A fetched rate that jumps
 * more than the configured share from the last accepted one is held back (`rates_held`).
 */
export const ratesPlugin = definePlugin({
  id: 'rates',
  exports: RATES_EXPORTS,
  config: RatesConfigSchema,
  migrations: [m0001Rates, m0002RatesHeld, m0003RatesHeldRepeats],
  errors: [ratesErrors],
  register: ({ config }) => ({
    ratesConfig: serviceValue(config),
    ratesFetchCounter: service(['metrics'], ({ metrics }) => createFetchCounter(metrics.registry)),
    ratesHeldCounter: service(['metrics'], ({ metrics }) => createHeldCounter(metrics.registry)),
    ratesCatalogue: service(['chains', 'ratesConfig'], ({ chains, ratesConfig }) =>
      checkedCatalogue(PriceCatalogue.of(chains), chains.knownPriceSymbols(), ratesConfig),
    ),
    ratesService: service(
      ['db', 'audit', 'logger', 'ratesConfig', 'ratesCatalogue', 'ratesFetchCounter', 'ratesHeldCounter'],
      (deps) =>
        new RateService({
          db: deps.db,
          audit: deps.audit,
          logger: deps.logger.child({ plugin: 'rates' }),
          config: deps.ratesConfig,
          catalogue: deps.ratesCatalogue,
          fetchCounter: deps.ratesFetchCounter,
          heldCounter: deps.ratesHeldCounter,
        }),
    ),
  }),
  // Its dashboard sections (ADR 0011).
  contributes: [dashboardPages(RATES_DASHBOARD_DEPS, [ratesRefreshPage]), pageSections(RATES_DASHBOARD_DEPS, [ratesSection])],
  jobs: ratesJobs,
  readiness: ratesReadiness,
  cli: ratesCommands,
  start: withDeps(['metrics', 'db', 'logger', 'ratesConfig', 'ratesFetchCounter', 'ratesHeldCounter', 'ratesCatalogue'], async (deps) => {
    // Resolved at start so a fixed rate or Kraken pair for an asset no enabled coin has stops it.
    void deps.ratesCatalogue;
    registerRateGauges(deps.metrics.registry, deps);
    // Resolved eagerly so the counters are on /metrics before the first fetch.
    void deps.ratesFetchCounter;
    void deps.ratesHeldCounter;
  }),
});

export * from './contract.js';
export { PriceCatalogue, providerIdOf, providerKeysOf, type Asset } from './assets.js';
export { RatesConfigSchema, type RatesConfig, type ProviderId } from './config.js';
export { isRateUnavailable, RATE_UNAVAILABLE_RETRY_AFTER, ratesErrors } from './errors.js';
export { REFRESH_JOB } from './jobs.js';
export {
  RateService,
  providersFromConfig,
  type RateQuote,
  type RateServiceDeps,
  type ProviderRefresh,
  type CachedQuoteView,
  type HeldRateView,
  type RateKind,
} from './services/rate-service.js';
export { ProviderError, type RateProvider, type ProviderRate } from './providers/provider.js';
export { CoinGeckoProvider, type CoinGeckoOptions } from './providers/coingecko.js';
export { KrakenProvider, KRAKEN_FIAT_PAIRS, type KrakenOptions, type KrakenPair, type KrakenFiatPair } from './providers/kraken.js';
export { changePercent, movedBeyond } from './jump-check.js';
export { FixedProvider } from './providers/fixed.js';

/**
 * Throws an Error naming the key when config prices an asset no coin of the build is priced as (a
 * typo), a fiat rate of a currency that is not priced or of USD, or adds a fiat currency whose
 * code is a coin's asset symbol (both share the quote cache). An asset of a disabled chain only is
 * accepted and unused: turning a chain off does not require editing the rates config.
 */
function checkedCatalogue(catalogue: PriceCatalogue, buildSymbols: ReadonlySet<string>, config: RatesConfig): PriceCatalogue {
  for (const key of ['fixed', 'kraken.pairs'] as const) {
    const entries = key === 'fixed' ? config.fixed : config.kraken.pairs;
    for (const symbol of Object.keys(entries)) {
      if (!buildSymbols.has(symbol))
        throw new Error(`plugins.rates.${key}.${symbol}: no coin of this build is priced as ${symbol} (assets: ${[...buildSymbols].join(', ')})`);
    }
  }
  for (const code of config.fiat.currencies) {
    if (buildSymbols.has(code)) throw new Error(`plugins.rates.fiat.currencies: ${code} is the asset symbol of a coin of this build, not a fiat currency`);
  }
  const priced = new Set<string>([...FIAT_CURRENCIES, ...config.fiat.currencies]);
  for (const code of Object.keys(config.fixedFiat)) {
    if (code === USD) throw new Error('plugins.rates.fixedFiat.USD: USD is always 1; remove it');
    if (!priced.has(code))
      throw new Error(`plugins.rates.fixedFiat.${code}: ${code} is not a priced currency (${[...priced].join(', ')}); add it to plugins.rates.fiat.currencies`);
  }
  return catalogue;
}

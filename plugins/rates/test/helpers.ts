import { pino } from 'pino';
import { createChainRegistry, definePlugin, defineRoute, withDeps, type CoinId, type PriceAsset } from '@gw/kernel';
import type { TestFn } from 'ava';
import type { Knex } from 'knex';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { PriceCatalogue, ratesPlugin, RateService, type RatesConfig } from '@gw/plugin-rates';
// The composition's chains (by path: a package dependency on the gateway app would be a cycle).
import { ALL_CHAINS as chains } from '@gw/testing';
import Type from 'typebox';
import { ProviderServer } from './provider-server.js';

/** The chains of the build: the rates plugin prices what their coin definitions name. */
export const CHAINS = chains;

/** The price assets of the default chains (the spec's seven: nine assets), with their provider ids. */
export const CATALOGUE = PriceCatalogue.of(createChainRegistry(chains, pino({ level: 'silent' })));
export const ASSETS: readonly PriceAsset[] = CATALOGUE.assets;

/** The price assets of the given symbols, from the default chains' coin definitions. */
export function assets(...symbols: string[]): PriceAsset[] {
  return symbols.map((symbol) => {
    const asset = ASSETS.find((a) => a.symbol === symbol);
    if (!asset) throw new Error(`no coin is priced as ${symbol}`);
    return asset;
  });
}

/** Config overrides pointing both providers at the stand-in; no memo and no cooldown unless a test wants them. */
export function standInConfig(server: ProviderServer): Record<string, unknown> {
  return {
    'plugins.rates.coingecko.baseUrl': server.coingeckoUrl,
    'plugins.rates.coingecko.timeoutMs': 1_000,
    'plugins.rates.kraken.baseUrl': server.krakenUrl,
    'plugins.rates.kraken.timeoutMs': 1_000,
    'plugins.rates.memoSeconds': 0,
    'plugins.rates.failureCooldownSeconds': 0,
  };
}

/** Test-only routes that quote a coin or a fiat currency, so the error path is seen as an API client sees it. */
export const rateProbePlugin = definePlugin({
  id: 'rate-probe',
  dependsOn: ['rates'],
  routes: withDeps(['ratesService'], (deps) => [
    defineRoute({
      method: 'GET',
      path: '/probe/rates/:coin',
      summary: 'Quote one coin.',
      auth: 'none',
      params: Type.Object({ coin: Type.String() }),
      handler: async ({ params }) => {
        const quote = await deps.ratesService.quote(params.coin as CoinId);
        return { body: { ...quote, fetchedAt: quote.fetchedAt.toISOString() } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/probe/fiat/:currency',
      summary: 'Quote one fiat currency.',
      auth: 'none',
      params: Type.Object({ currency: Type.String() }),
      handler: async ({ params }) => {
        const quote = await deps.ratesService.fiatQuote(params.currency);
        return { body: { ...quote, fetchedAt: quote.fetchedAt.toISOString() } };
      },
    }),
  ]),
});

/** What {@link rateServiceFixture} starts for a test file; its fields are set once `test.before` has run. */
export interface RateServiceFixture {
  /** The stand-in of both providers, answering `ok` before each test. */
  server: ProviderServer;
  /** A gateway (role `gateway`: no scheduled refresh behind a test's back) with the rates plugin and the probe routes. */
  gw: TestKernel;
  /** Its database, whose stored and held rates are emptied before each test. */
  db: Knex;
  /** The kernel's rate service. */
  rates(): RateService;
  /** A service over the same database with a different config (the kernel's own stays as configured). */
  serviceWith(patch: Partial<RatesConfig>): RateService;
}

/**
 * Starts, for a test file of the rate service, the provider stand-in and a gateway pointed at it
 * (with `config` on top of {@link standInConfig}), empties the stored and held rates before each
 * test, and stops both after the file's tests.
 */
export function rateServiceFixture(test: TestFn, config: Record<string, unknown> = {}): RateServiceFixture {
  const fixture = {
    rates: () => fixture.gw.kernel.cradle.ratesService,
    serviceWith(patch: Partial<RatesConfig>): RateService {
      const { db, logger, ratesConfig, ratesCatalogue } = fixture.gw.kernel.cradle;
      return new RateService({ db, logger, config: { ...ratesConfig, ...patch }, catalogue: ratesCatalogue });
    },
  } as RateServiceFixture;
  test.before(async () => {
    fixture.server = await ProviderServer.start();
    fixture.gw = await startTestKernel({
      plugins: [ratesPlugin, rateProbePlugin],
      chains: CHAINS,
      role: 'gateway',
      config: { ...standInConfig(fixture.server), ...config },
    });
    fixture.db = fixture.gw.kernel.cradle.db;
  });
  test.after.always(async () => {
    await fixture.gw?.close();
    await fixture.server?.close();
  });
  test.beforeEach(async () => {
    fixture.server.set('ok', 'ok');
    await fixture.db('rates_quotes').del();
    await fixture.db('rates_held').del();
  });
  return fixture;
}

import { pino } from 'pino';
import { createChainRegistry, definePlugin, defineRoute, withDeps, type CoinId, type PriceAsset } from '@gw/kernel';
import { PriceCatalogue } from '@gw/plugin-rates';
// The composition's chains (by path: a package dependency on the gateway app would be a cycle).
import { ALL_CHAINS as chains } from '@gw/testing';
import Type from 'typebox';
import type { ProviderServer } from './provider-server.js';

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

import { type CoinId, definePlugin, defineRoute, withDeps } from '@gw/kernel';
import Type from 'typebox';
import type { ProviderServer } from './provider-server.js';

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

/** A test-only route that quotes a coin, so the error path is seen as an API client sees it. */
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
  ]),
});

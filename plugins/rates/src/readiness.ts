import { type ReadinessCheck, withDeps } from '@gw/kernel';

/**
 * Rates: invoices priced in USD need a quote. A fixed rate always answers; otherwise some provider
 * must have answered within `maxAgeSeconds` (its quotes are in the shared database). The check
 * reads the database only; it never calls a provider itself.
 */
export const ratesReadiness = withDeps(['ratesConfig', 'ratesService'], (deps): ReadinessCheck[] => {
  return [
    {
      name: 'rates.source',
      summary: 'A USD rate source answers: a fixed rate, or a provider quote younger than plugins.rates.maxAgeSeconds.',
      run: async () => {
        const config = deps.ratesConfig;
        const fixed = Object.entries(config.fixed)
          .filter(([, rate]) => rate !== undefined)
          .map(([asset]) => asset);
        const fresh = (await deps.ratesService.cached()).filter((quote) => quote.usable);
        const sources = [...new Set(fresh.map((q) => q.source))];
        if (fresh.length > 0 || fixed.length > 0) {
          return {
            ok: true,
            detail:
              [
                fresh.length > 0 ? `fresh quotes from ${sources.join(', ')} for ${[...new Set(fresh.map((q) => q.asset))].join(', ')}` : '',
                fixed.length > 0 ? `fixed rates for ${fixed.join(', ')}` : '',
              ]
                .filter(Boolean)
                .join('; ') + '.',
          };
        }
        return {
          ok: false,
          severity: 'error',
          detail: `no provider (${config.providers.join(', ')}) has answered within ${config.maxAgeSeconds} s and no fixed rate is set: invoices priced in USD fail with rate_unavailable.`,
          fix: "Check that the workers reach the providers (`gateway rates refresh` shows each one's answer), or set plugins.rates.fixed.<ASSET>.",
        };
      },
    },
  ];
});

import { Counter, type Registry } from 'prom-client';

/** `gateway_rates_provider_fetches_total{provider,outcome}`: provider round trips by this process. */
export type RatesFetchCounter = Counter<'provider' | 'outcome'>;

export function createFetchCounter(registry: Registry): RatesFetchCounter {
  return new Counter({
    name: 'gateway_rates_provider_fetches_total',
    help: 'USD rate provider fetches by provider and outcome (ok or error).',
    labelNames: ['provider', 'outcome'],
    registers: [registry],
  });
}

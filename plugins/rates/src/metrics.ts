import { Counter, Gauge, type Registry } from 'prom-client';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

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

/** `gateway_rates_held_total{asset}`: fetched rates this process held back (the jump check). */
export type RatesHeldCounter = Counter<'asset'>;

export function createHeldCounter(registry: Registry): RatesHeldCounter {
  return new Counter({
    name: 'gateway_rates_held_total',
    help: 'Fetched USD rates held back because they moved more than plugins.rates.jump.share (fiat: jump.fiatShare) from the last accepted one.',
    labelNames: ['asset'],
    registers: [registry],
  });
}

/**
 * `gateway_rates_quote_age_seconds{asset}`: age of the freshest provider quote of each asset, read
 * from `rates_quotes` at scrape time (the refresh job of any worker writes them), and
 * `gateway_rates_max_age_seconds`: the configured `maxAgeSeconds`, past which a quote is no longer
 * used (the alert compares the two). An asset with a fixed rate only has no age series. And
 * `gateway_rates_held{asset}`: 1 for each asset whose fetched rate is held back now (`rates_held`,
 * whichever process held it), for the `RatesHeldBack` alert.
 */
export function registerRateGauges(registry: Registry, deps: { db: Knex; logger: Logger; ratesConfig: { maxAgeSeconds: number } }): void {
  new Gauge({
    name: 'gateway_rates_quote_age_seconds',
    help: 'Age of the freshest stored provider quote per asset.',
    labelNames: ['asset'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const result = await deps.db.raw<{ rows: { asset: string; age: string }[] }>(
          `select asset, extract(epoch from now() - max(fetched_at)) as age from rates_quotes where source <> 'fixed' group by asset`,
        );
        for (const row of result.rows) this.set({ asset: row.asset }, Math.max(0, Number(row.age)));
      } catch (error) {
        deps.logger.warn({ err: error }, 'rate age gauge unavailable');
      }
    },
  });
  new Gauge({
    name: 'gateway_rates_held',
    help: '1 per asset whose fetched USD rate is held back by the jump check (the last accepted rate is used meanwhile).',
    labelNames: ['asset'],
    registers: [registry],
    async collect() {
      this.reset();
      try {
        const result = await deps.db.raw<{ rows: { asset: string }[] }>(`select asset from rates_held`);
        for (const row of result.rows) this.set({ asset: row.asset }, 1);
      } catch (error) {
        deps.logger.warn({ err: error }, 'held rate gauge unavailable');
      }
    },
  });
  new Gauge({
    name: 'gateway_rates_max_age_seconds',
    help: 'plugins.rates.maxAgeSeconds: the oldest quote still used.',
    registers: [registry],
    collect() {
      this.set(deps.ratesConfig.maxAgeSeconds);
    },
  });
}

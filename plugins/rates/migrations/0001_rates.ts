import type { Migration } from '@gw/kernel';

/**
 * The USD quote cache shared by every gateway and worker: the latest quote per (asset, source).
 * `fetched_at` is the provider's own time when it gives one, so staleness is judged by the price's
 * age, not by when it was stored.
 */
export const m0001Rates: Migration = {
  name: '0001_rates',
  async up(knex) {
    await knex.schema.createTable('rates_quotes', (t) => {
      t.text('asset').notNullable().comment('asset symbol, e.g. BTC, USDT');
      t.text('source').notNullable().comment('provider id: coingecko, kraken, fixed');
      t.specificType('rate', 'numeric').notNullable().comment('USD per 1 whole unit, exact');
      t.timestamp('fetched_at', { useTz: true }).notNullable().comment('when the provider produced the price');
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('when this row was last written');
      t.primary(['asset', 'source']);
    });
    await knex.raw(`alter table rates_quotes add constraint rates_quotes_rate_check check (rate > 0)`);
    await knex.raw(`alter table rates_quotes add constraint rates_quotes_asset_check check (asset ~ '^[A-Z0-9]+$')`);
    await knex.raw(`alter table rates_quotes add constraint rates_quotes_source_check check (source ~ '^[a-z][a-z0-9-]*$')`);
  },
  async down(knex) {
    await knex.schema.dropTable('rates_quotes');
  },
};

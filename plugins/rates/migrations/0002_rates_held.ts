import type { Migration } from '@gw/kernel';

/**
 * Rates held back by the jump check (issue 38): a fetched rate that moved more than the configured
 * share from the last accepted one of its asset is kept here instead of in `rates_quotes`, one row
 * per asset, until a later fetch confirms it or an operator releases it.
 */
export const m0002RatesHeld: Migration = {
  name: '0002_rates_held',
  async up(knex) {
    await knex.schema.createTable('rates_held', (t) => {
      t.text('asset').primary().comment('asset symbol or fiat currency code, e.g. BTC, EUR');
      t.text('source').notNullable().comment('provider id that fetched the held rate');
      t.specificType('rate', 'numeric').notNullable().comment('the held rate: USD per 1 whole unit, exact');
      t.timestamp('fetched_at', { useTz: true }).notNullable().comment('when the provider produced the held rate');
      t.specificType('accepted_rate', 'numeric').notNullable().comment('the last accepted rate it was compared with');
      t.text('accepted_source').notNullable().comment('provider of the last accepted rate');
      t.timestamp('held_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('when a rate of the asset was first held back');
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now()).comment('when this row was last written');
    });
    await knex.raw(`alter table rates_held add constraint rates_held_rate_check check (rate > 0 and accepted_rate > 0)`);
    await knex.raw(`alter table rates_held add constraint rates_held_asset_check check (asset ~ '^[A-Z0-9]+$')`);
    await knex.raw(`alter table rates_held add constraint rates_held_source_check check (source ~ '^[a-z][a-z0-9-]*$')`);
  },
  async down(knex) {
    await knex.schema.dropTable('rates_held');
  },
};

import type { Migration } from '@gw/kernel';

/**
 * The rows still waiting for activation on a chain, in id order (`AddressPoolService.unactivated`,
 * which the watchers page through to ask the chain which of them exist now). Partial: activated rows,
 * every row of a chain without activation among them, are never in it.
 */
export const m0003UnactivatedIndex: Migration = {
  name: '0003_unactivated_index',
  async up(knex) {
    await knex.raw(`create index address_pool_addresses_unactivated on address_pool_addresses (chain, id) where not activated`);
  },
  async down(knex) {
    await knex.raw(`drop index address_pool_addresses_unactivated`);
  },
};

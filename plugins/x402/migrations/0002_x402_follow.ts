import type { Migration } from '@gw/kernel';

/**
 * The follow job (`x402.follow`): the settlements still waiting for their transaction's outcome, oldest
 * first (partial: finished rows are never in it). And a gas nonce is single among the settlements
 * that hold it: a settlement the node dropped (`failed`, never mined) gives its nonce back, and the
 * next settlement of the wallet takes it.
 */
export const m0002X402Follow: Migration = {
  name: '0002_x402_follow',
  async up(knex) {
    await knex.raw(`create index x402_settlements_unfinished on x402_settlements (created_at) where status in ('submitted', 'pending')`);
    await knex.raw(`drop index x402_settlements_gas_nonce`);
    await knex.raw(
      `create unique index x402_settlements_gas_nonce on x402_settlements (chain, network, gas_address, gas_nonce) where gas_nonce is not null and status <> 'failed'`,
    );
  },
  async down(knex) {
    await knex.raw(`drop index x402_settlements_gas_nonce`);
    await knex.raw(`create unique index x402_settlements_gas_nonce on x402_settlements (chain, network, gas_address, gas_nonce) where gas_nonce is not null`);
    await knex.raw(`drop index x402_settlements_unfinished`);
  },
};

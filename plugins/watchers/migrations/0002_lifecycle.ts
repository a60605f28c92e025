import type { Migration } from '@gw/kernel';

/**
 * Counting through the invoice lifecycle: `confirmations` is the count last reported for a
 * transfer, so a pass reports only the transfers whose count moved; `mempool_offset` rotates the
 * bounded mempool probe over the watched addresses (one window per pass).
 */
export const m0002Lifecycle: Migration = {
  name: '0002_lifecycle',
  async up(knex) {
    await knex.raw(`alter table watchers_transfers add column confirmations integer not null default 0`);
    await knex.raw(`alter table watchers_cursors add column mempool_offset integer not null default 0`);
    // The mempool sweep finds unmined transfers by first sight.
    await knex.raw(`create index watchers_transfers_mempool on watchers_transfers (chain, network, received_at) where status = 'mempool'`);
    // Counting walks a network's transfers still below finality.
    await knex.raw(`drop index watchers_transfers_counting`);
    await knex.raw(
      `create index watchers_transfers_counting on watchers_transfers (chain, network, block_height) where invoice_id is not null and status = 'in_block' and final_at is null`,
    );
  },
  async down(knex) {
    await knex.raw(`drop index watchers_transfers_counting`);
    await knex.raw(`create index watchers_transfers_counting on watchers_transfers (chain, network, block_height) where invoice_id is not null`);
    await knex.raw(`drop index watchers_transfers_mempool`);
    await knex.raw(`alter table watchers_cursors drop column mempool_offset`);
    await knex.raw(`alter table watchers_transfers drop column confirmations`);
  },
};

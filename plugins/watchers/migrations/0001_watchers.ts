import type { Migration } from '@gw/kernel';

/**
 * Scanner state and observed transfers. `watchers_cursors`: per chain and network, the last block
 * fully processed and the scanner's health. `watchers_blocks`: the hashes of recently scanned
 * blocks, how a reorg is noticed (a new block whose parent is not the stored hash).
 * `watchers_transfers`: every receipt at a pool address, unique on (chain, network, tx, output):
 * a transfer seen twice counts once. A transfer with no invoice is an orphan payment (spec 2.3).
 */
export const m0001Watchers: Migration = {
  name: '0001_watchers',
  async up(knex) {
    await knex.schema.createTable('watchers_cursors', (t) => {
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.bigInteger('height').notNullable().comment('last block fully processed');
      t.bigInteger('head_height').nullable().comment('the tip at the last scan');
      t.bigInteger('finalized_height').nullable();
      t.integer('consecutive_failures').notNullable().defaultTo(0);
      t.text('last_error').nullable();
      t.timestamp('last_error_at', { useTz: true }).nullable();
      t.timestamp('next_scan_at', { useTz: true }).nullable().comment('backoff after provider failures');
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['chain', 'network']);
    });
    await knex.schema.createTable('watchers_blocks', (t) => {
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.bigInteger('height').notNullable();
      t.text('hash').notNullable();
      t.text('parent_hash').notNullable();
      t.timestamp('scanned_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['chain', 'network', 'height']);
    });
    await knex.schema.createTable('watchers_transfers', (t) => {
      t.string('id', 26).primary();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('coin').notNullable();
      t.text('tx_hash').notNullable();
      t.integer('output_index').notNullable();
      t.text('to_address').notNullable();
      t.text('from_address').nullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.bigInteger('block_height').nullable().comment('null while only in the mempool');
      t.text('block_hash').nullable();
      t.text('memo').nullable();
      t.text('status').notNullable().comment('mempool | in_block | reverted');
      t.string('project_id', 26).notNullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.string('pool_address_id', 26).notNullable();
      t.string('invoice_id', 26).nullable().comment('the invoice it counts for; null: an orphan');
      t.text('match').notNullable().comment('invoice | late | orphan | ambiguous');
      t.timestamp('attributed_at', { useTz: true }).nullable().comment('orphan attributed to a synthetic invoice');
      t.timestamp('final_at', { useTz: true }).nullable().comment('counted in its invoice`s final status (confirmations reached)');
      t.timestamp('received_at', { useTz: true }).notNullable().comment('block time (first seen for mempool)');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['chain', 'network', 'tx_hash', 'output_index']);
    });
    await knex.raw(`alter table watchers_transfers add constraint watchers_transfers_status_check check (status in ('mempool', 'in_block', 'reverted'))`);
    await knex.raw(`alter table watchers_transfers add constraint watchers_transfers_match_check check (match in ('invoice', 'late', 'orphan', 'ambiguous'))`);
    await knex.raw(`alter table watchers_transfers add constraint watchers_transfers_amount_check check (amount_units > 0 and output_index >= 0)`);
    // The orphan inbox lists a project's unmatched receipts newest first.
    await knex.raw(`create index watchers_transfers_orphans on watchers_transfers (project_id, id desc) where match in ('orphan', 'ambiguous')`);
    // Confirmation counting walks the transfers still below finality per chain.
    await knex.raw(`create index watchers_transfers_counting on watchers_transfers (chain, network, block_height) where invoice_id is not null`);
    await knex.raw(`create index watchers_transfers_invoice on watchers_transfers (invoice_id) where invoice_id is not null`);
  },
  async down(knex) {
    await knex.schema.dropTable('watchers_transfers');
    await knex.schema.dropTable('watchers_blocks');
    await knex.schema.dropTable('watchers_cursors');
  },
};

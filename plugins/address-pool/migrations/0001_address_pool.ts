import type { Migration } from '@gw/kernel';

/**
 * Pre-derived deposit addresses per wallet binding. `wallet_id` names the wallets plugin's binding
 * (no foreign key across plugins: the binding is only ever read through the wallets service), so a
 * replaced key starts a fresh pool while rows of the old key stay for invoices still using them.
 */
export const m0001AddressPool: Migration = {
  name: '0001_address_pool',
  async up(knex) {
    await knex.schema.createTable('address_pool_addresses', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.text('chain').notNullable();
      t.string('wallet_id', 26).notNullable();
      t.integer('derivation_index').notNullable();
      t.text('address').notNullable();
      t.text('derivation_path').notNullable();
      t.text('state').notNullable().defaultTo('available');
      t.timestamp('cooldown_until', { useTz: true }).nullable();
      t.boolean('activated').notNullable();
      t.timestamp('activated_at', { useTz: true }).nullable();
      t.integer('active_allocations').notNullable().defaultTo(0).comment('current holders; more than one means overlay');
      t.integer('allocation_count').notNullable().defaultTo(0).comment('allocations ever made');
      t.text('last_invoice_ref').nullable();
      t.timestamp('allocated_at', { useTz: true }).nullable();
      t.timestamp('released_at', { useTz: true }).nullable().comment('last release after use');
      t.timestamp('paid_at', { useTz: true }).nullable().comment('last payment seen (set by invoices via markPaid)');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.unique(['wallet_id', 'derivation_index']);
      t.index(['project_id', 'chain']);
    });
    await knex.raw(`alter table address_pool_addresses add constraint address_pool_addresses_state_check
      check (state in ('available', 'allocated', 'cooldown'))`);
    await knex.raw(`alter table address_pool_addresses add constraint address_pool_addresses_allocations_check
      check (active_allocations >= 0 and allocation_count >= active_allocations
        and (state = 'allocated') = (active_allocations > 0)
        and (state = 'cooldown') = (cooldown_until is not null))`);
    await knex.raw(`alter table address_pool_addresses add constraint address_pool_addresses_index_check
      check (derivation_index >= 0)`);
    // Free-row lookups (allocate) walk this index in derivation order.
    await knex.raw(`create index address_pool_addresses_free
      on address_pool_addresses (wallet_id, derivation_index) where state <> 'allocated'`);
    await knex.raw(`create index address_pool_addresses_address on address_pool_addresses (chain, address)`);
  },
  async down(knex) {
    await knex.schema.dropTable('address_pool_addresses');
  },
};

import type { Migration } from '@gw/kernel';

/**
 * x402 (issue 41). `x402_offers`: each fresh payTo the facilitator or a paid tool handed out, with
 * the invoice it is (invoice and session URLs offer their invoice's own address and need no row).
 * `x402_settlements`: every authorization this gateway submitted or handed to an external
 * facilitator. Its unique key on (chain, network, asset, payer, nonce) is what makes two gateways
 * settling one authorization send one transaction; the one on (chain, network, gas address, gas
 * nonce) keeps the gas wallet's nonces single across instances among the settlements that hold one
 * (a `failed` settlement the node never mined gives its nonce back to the next one). Addresses are stored lowercase;
 * amounts are base units (`numeric(78,0)`).
 */
export const m0001X402: Migration = {
  name: '0001_x402',
  async up(knex) {
    await knex.schema.createTable('x402_offers', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable();
      t.string('invoice_id', 26).notNullable().unique();
      t.text('source').notNullable();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('coin').notNullable();
      t.text('asset').notNullable();
      t.text('pay_to').notNullable();
      t.specificType('amount_units', 'numeric(78,0)').notNullable();
      t.text('resource_url').notNullable();
      t.text('tool').nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('expires_at', { useTz: true }).notNullable();
    });
    await knex.raw(`alter table x402_offers add constraint x402_offers_source_check check (source in ('facilitator', 'tool'))`);
    await knex.raw(`create index x402_offers_pay_to on x402_offers (chain, network, pay_to, created_at desc)`);
    await knex.raw(`create index x402_offers_project on x402_offers (project_id, created_at desc)`);

    await knex.schema.createTable('x402_settlements', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable();
      t.string('invoice_id', 26).notNullable();
      t.text('source').notNullable();
      t.text('chain').notNullable();
      t.text('network').notNullable();
      t.text('coin').notNullable();
      t.text('asset').notNullable();
      t.text('payer').notNullable();
      t.text('pay_to').notNullable();
      t.specificType('value_units', 'numeric(78,0)').notNullable();
      t.text('auth_nonce').notNullable();
      t.bigInteger('valid_before').notNullable();
      t.text('mode').notNullable();
      t.text('gas_address').nullable();
      t.specificType('gas_nonce', 'numeric(78,0)').nullable();
      t.specificType('spend_units', 'numeric(78,0)').nullable().comment('gas limit × max fee per gas the gas wallet signed for');
      t.text('tx_hash').nullable();
      t.text('raw_tx').nullable().comment('the gas wallet signed transaction, rebroadcast when a node dropped it (not secret)');
      t.text('auth_signature')
        .notNullable()
        .comment('the payer signature of the authorization (a retried settle of the same payload waits for its transaction)');
      t.text('status').notNullable();
      t.text('error_reason').nullable();
      t.text('error_message').nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('settled_at', { useTz: true }).nullable();
    });
    await knex.raw(`alter table x402_settlements add constraint x402_settlements_source_check check (source in ('invoice', 'session', 'facilitator', 'tool'))`);
    await knex.raw(`alter table x402_settlements add constraint x402_settlements_mode_check check (mode in ('gas_wallet', 'facilitator'))`);
    await knex.raw(`alter table x402_settlements add constraint x402_settlements_status_check check (status in ('submitted', 'settled', 'pending', 'failed'))`);
    await knex.raw(`create unique index x402_settlements_authorization on x402_settlements (chain, network, asset, payer, auth_nonce)`);
    await knex.raw(
      `create unique index x402_settlements_gas_nonce on x402_settlements (chain, network, gas_address, gas_nonce) where gas_nonce is not null and status <> 'failed'`,
    );
    await knex.raw(`create index x402_settlements_unfinished on x402_settlements (created_at) where status in ('submitted', 'pending')`);
    await knex.raw(`create index x402_settlements_gas_day on x402_settlements (chain, network, gas_address, created_at) where gas_address is not null`);
    await knex.raw(`create index x402_settlements_project on x402_settlements (project_id, created_at desc)`);
    await knex.raw(`create index x402_settlements_invoice on x402_settlements (invoice_id)`);
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('x402_settlements');
    await knex.schema.dropTableIfExists('x402_offers');
  },
};

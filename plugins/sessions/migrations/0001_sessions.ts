import type { Migration } from '@gw/kernel';

/**
 * Checkout sessions and payment links (issue 38): the sessions (`sessions_sessions`), the invoices
 * each session's picks created and the late ones credited to it (`sessions_invoices`), and the
 * payment links (`sessions_links`). Prices are decimal strings in their currency (a fiat currency
 * or a coin); the invoices themselves stay the invoices plugin's.
 */
export const m0001Sessions: Migration = {
  name: '0001_sessions',
  async up(knex) {
    await knex.schema.createTable('sessions_links', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable();
      t.text('project_kind').notNullable();
      t.text('token').notNullable().unique().comment('the page token of {base_url}/l/{token}');
      t.boolean('active').notNullable().defaultTo(true);
      t.text('price_currency').notNullable();
      t.text('price_amount').nullable().comment('a fixed price; null when the payer enters the amount');
      t.text('min_amount').nullable();
      t.text('max_amount').nullable();
      t.jsonb('allowed_coins').nullable().comment("null: the project's invoiceable coins when a session opens");
      t.text('description').nullable();
      t.jsonb('line_items').notNullable().defaultTo('[]');
      t.integer('max_uses').nullable();
      t.boolean('ask_email').notNullable().defaultTo(true);
      t.text('return_url').nullable();
      t.jsonb('metadata').nullable();
      t.text('idempotency_key').nullable();
      t.text('request_digest').nullable();
      t.text('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('deactivated_at', { useTz: true }).nullable();
    });
    await knex.raw(`alter table sessions_links add constraint sessions_links_price_check
      check ((price_amount is not null and min_amount is null and max_amount is null) or (price_amount is null and min_amount is not null and max_amount is not null))`);
    await knex.raw(`alter table sessions_links add constraint sessions_links_max_uses_check check (max_uses is null or max_uses > 0)`);
    await knex.raw(`create index sessions_links_project on sessions_links (project_id, id desc)`);
    await knex.raw(`create unique index sessions_links_idempotency on sessions_links (project_id, idempotency_key) where idempotency_key is not null`);

    await knex.schema.createTable('sessions_sessions', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable();
      t.text('project_kind').notNullable();
      t.text('status').notNullable();
      t.text('token').notNullable().unique().comment('the page token of {base_url}/pay/{token}');
      t.text('receipt_token').nullable().unique().comment('the receipt page token, set when the session completes');
      t.text('price_currency').notNullable();
      t.text('price_amount').notNullable();
      t.jsonb('allowed_coins').notNullable();
      t.text('description').nullable();
      t.jsonb('line_items').notNullable().defaultTo('[]');
      t.text('external_id').nullable();
      t.text('customer_email').nullable();
      t.text('return_url').nullable();
      t.text('cancel_url').nullable();
      t.jsonb('metadata').nullable();
      t.string('payment_link_id', 26).nullable().references('id').inTable('sessions_links');
      t.string('invoice_id', 26).nullable().comment('the invoice of the coin picked last (of a completed session: the paying invoice)');
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('completed_at', { useTz: true }).nullable();
      t.timestamp('expired_at', { useTz: true }).nullable();
      t.text('idempotency_key').nullable();
      t.text('request_digest').nullable();
      t.text('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw(`alter table sessions_sessions add constraint sessions_sessions_status_check check (status in ('open', 'completed', 'expired'))`);
    await knex.raw(`create index sessions_sessions_project on sessions_sessions (project_id, id desc)`);
    await knex.raw(`create index sessions_sessions_external_id on sessions_sessions (project_id, external_id) where external_id is not null`);
    await knex.raw(`create index sessions_sessions_link on sessions_sessions (payment_link_id, status) where payment_link_id is not null`);
    await knex.raw(`create index sessions_sessions_due on sessions_sessions (expires_at) where status = 'open'`);
    await knex.raw(`create unique index sessions_sessions_idempotency on sessions_sessions (project_id, idempotency_key) where idempotency_key is not null`);

    await knex.schema.createTable('sessions_invoices', (t) => {
      t.string('invoice_id', 26).primary();
      t.string('session_id', 26).notNullable().references('id').inTable('sessions_sessions').onDelete('CASCADE');
      t.string('project_id', 26).notNullable();
      t.text('kind').notNullable().comment('pick: created by a pick; late: an orphan payment to a switched-away address, attributed');
      t.integer('seq').notNullable().comment('the n of its external_id cs_<session>_<n> (cs_<session>_late_<n>)');
      t.text('coin').notNullable();
      t.text('address').notNullable();
      t.text('status').notNullable().comment("the invoice's status as the session last heard of it");
      t.text('amount_crypto').notNullable();
      t.boolean('late').notNullable().defaultTo(false);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw(`alter table sessions_invoices add constraint sessions_invoices_kind_check check (kind in ('pick', 'late'))`);
    await knex.raw(`create unique index sessions_invoices_seq on sessions_invoices (session_id, kind, seq)`);
    // The late-payments job's work list: the addresses of invoices the payer switched away from.
    await knex.raw(`create index sessions_invoices_cancelled on sessions_invoices (project_id, created_at) where status = 'cancelled'`);
  },
  async down(knex) {
    await knex.schema.dropTable('sessions_invoices');
    await knex.schema.dropTable('sessions_sessions');
    await knex.schema.dropTable('sessions_links');
  },
};

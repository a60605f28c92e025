import type { Migration } from '@gw/kernel';

/**
 * Negative cache of client metadata documents (issue 24 item 4): a client_id URL whose document
 * could not be fetched or was invalid is refused without a new fetch until `retry_at`. In
 * PostgreSQL, so every instance sees it; `retry_at` is set and compared with the database's clock.
 */
export const m0002DocumentFailures: Migration = {
  name: '0002_document_failures',
  async up(knex) {
    await knex.schema.createTable('oauth_client_document_failures', (t) => {
      t.text('client_id').primary().comment('the https client_id URL');
      t.text('host').notNullable().comment('host:port of the URL (the fetch throttle key)');
      t.text('reason').notNullable().comment('why it was refused (operator log only; never answered)');
      t.integer('failures').notNullable().defaultTo(1);
      t.timestamp('failed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('retry_at', { useTz: true }).notNullable();
      t.index(['retry_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists('oauth_client_document_failures');
  },
};

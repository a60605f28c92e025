import type { Migration } from '@gw/kernel';

/**
 * The outbox and the delivery log. `webhooks_events` holds each event with the exact body every
 * attempt sends, its target (resolved when the event was written) and its delivery status;
 * `webhooks_attempts` one row per attempt. A resend is a new event row naming the original.
 */
export const m0001Webhooks: Migration = {
  name: '0001_webhooks',
  async up(knex) {
    await knex.schema.createTable('webhooks_events', (t) => {
      t.string('id', 26).primary();
      t.string('project_id', 26).notNullable().references('id').inTable('tenancy_projects').onDelete('CASCADE');
      t.text('mode').notNullable();
      t.string('invoice_id', 26).nullable();
      t.text('event_type').notNullable();
      t.string('original_event_id', 26).nullable();
      t.text('body').notNullable().comment('the JSON envelope, byte for byte what every attempt sends');
      t.text('target_url').nullable();
      t.text('status').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('next_attempt_at', { useTz: true }).nullable();
      t.timestamp('last_attempt_at', { useTz: true }).nullable();
      t.integer('last_http_status').nullable();
      t.text('last_error').nullable();
      t.timestamp('delivered_at', { useTz: true }).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.raw(`alter table webhooks_events add constraint webhooks_events_status_check check (status in ('retrying', 'delivered', 'dlq', 'skipped'))`);
    await knex.raw(`alter table webhooks_events add constraint webhooks_events_mode_check check (mode in ('production', 'testnet', 'sandbox'))`);
    await knex.raw(`create index webhooks_events_project on webhooks_events (project_id, id desc)`);
    await knex.raw(`create index webhooks_events_project_status on webhooks_events (project_id, status, id desc)`);
    await knex.raw(`create index webhooks_events_invoice on webhooks_events (invoice_id, id desc) where invoice_id is not null`);
    await knex.schema.createTable('webhooks_attempts', (t) => {
      t.string('id', 26).primary();
      t.string('event_id', 26).notNullable().references('id').inTable('webhooks_events').onDelete('CASCADE');
      t.integer('attempt').notNullable();
      t.text('target_url').notNullable();
      t.timestamp('started_at', { useTz: true }).notNullable();
      t.integer('http_status').nullable();
      t.integer('latency_ms').notNullable();
      t.text('error').nullable();
      t.text('response_excerpt').nullable();
      t.unique(['event_id', 'attempt']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('webhooks_attempts');
    await knex.schema.dropTable('webhooks_events');
  },
};

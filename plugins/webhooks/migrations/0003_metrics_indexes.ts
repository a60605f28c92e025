import type { Migration } from '@gw/kernel';

/**
 * The delivery gauges read on every scrape (issue 23): the backlog and its oldest event, and the
 * dead letters. Partial indexes keep both cheap however long the delivered history grows.
 */
export const m0003MetricsIndexes: Migration = {
  name: '0003_metrics_indexes',
  async up(knex) {
    await knex.raw(`create index webhooks_events_undelivered on webhooks_events (created_at) where status = 'retrying'`);
    await knex.raw(`create index webhooks_events_dead on webhooks_events (id) where status = 'dlq'`);
  },
  async down(knex) {
    await knex.raw(`drop index webhooks_events_dead`);
    await knex.raw(`drop index webhooks_events_undelivered`);
  },
};

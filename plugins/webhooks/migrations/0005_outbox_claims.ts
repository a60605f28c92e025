import type { Migration } from '@gw/kernel';

/**
 * Deliveries claimed from the outbox itself (issue 42, ADR 0013): workers lock due rows
 * (`status = 'retrying' and next_attempt_at <= now()`, `for update skip locked`) instead of
 * fetching one pg-boss job per attempt, so the index below is how they find them. The event row
 * now carries its last attempt whole (`last_started_at`, `last_latency_ms`,
 * `last_response_excerpt` beside the existing `last_*` columns): an attempt that delivers writes
 * no `webhooks_attempts` row, only one that fails does. `record_failures` counts the times a
 * batch's record could not be written, the backoff of the next try.
 */
export const m0005OutboxClaims: Migration = {
  name: '0005_outbox_claims',
  async up(knex) {
    await knex.raw(`
      alter table webhooks_events
        add column last_started_at timestamptz null,
        add column last_latency_ms integer null,
        add column last_response_excerpt text null,
        add column record_failures integer not null default 0;
      comment on column webhooks_events.last_started_at is 'when the last attempt started; with last_latency_ms, last_http_status, last_error, last_response_excerpt and target_url it is that attempt when it has no webhooks_attempts row (a delivering attempt)';
      comment on column webhooks_events.record_failures is 'how often a batch''s record of this event failed (database error); the next try waits 2^n seconds, at most an hour';
      create index webhooks_events_due on webhooks_events (next_attempt_at) where status = 'retrying';`);
  },
  async down(knex) {
    await knex.raw(`
      drop index webhooks_events_due;
      alter table webhooks_events
        drop column record_failures,
        drop column last_response_excerpt,
        drop column last_latency_ms,
        drop column last_started_at;`);
  },
};

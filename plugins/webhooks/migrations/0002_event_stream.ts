import type { Migration } from '@gw/kernel';

/**
 * The event stream's order (GET .../webhooks/stream): each event carries the id of the
 * transaction that wrote it. Ids are assigned in start order, and every transaction still running
 * (or not yet started) has an id at or above the oldest running one, `pg_snapshot_xmin`; so the
 * events below it are final, and reading them in (stream_xid, id) order never passes over an event
 * that commits later. Event ids (ULIDs) alone are not that order: a transaction that began
 * earlier may commit after a later one.
 */
export const m0002EventStream: Migration = {
  name: '0002_event_stream',
  async up(knex) {
    await knex.raw(`alter table webhooks_events add column stream_xid bigint not null default (pg_current_xact_id()::text::bigint)`);
    await knex.raw(`create index webhooks_events_stream on webhooks_events (project_id, stream_xid, id)`);
  },
  async down(knex) {
    await knex.raw(`drop index webhooks_events_stream`);
    await knex.raw(`alter table webhooks_events drop column stream_xid`);
  },
};

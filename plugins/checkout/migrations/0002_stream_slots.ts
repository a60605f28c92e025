import type { Migration } from '@gw/kernel';

/**
 * The open status streams of the checkout page, one row each, so the limit of streams per client
 * address holds over every gateway instance. An instance refreshes `seen_at` of its rows while
 * they are open; rows of an instance that died without closing them stop counting once stale.
 */
export const m0002StreamSlots: Migration = {
  name: '0002_stream_slots',
  async up(knex) {
    await knex.raw(`
      create table checkout_stream_slots (
        id varchar(26) primary key,
        client text not null,
        instance_id varchar(26) not null,
        opened_at timestamptz not null default now(),
        seen_at timestamptz not null default now()
      );
      comment on table checkout_stream_slots is 'open checkout status streams (events, long polls): the per-client limit across instances';
      comment on column checkout_stream_slots.client is 'the client address the stream was opened from (ctx.ip)';
      comment on column checkout_stream_slots.seen_at is 'refreshed by the holding instance while the stream is open (database clock)';
      create index checkout_stream_slots_client on checkout_stream_slots (client, seen_at);
      create index checkout_stream_slots_seen_at on checkout_stream_slots (seen_at);`);
  },
  async down(knex) {
    await knex.raw('drop table if exists checkout_stream_slots');
  },
};

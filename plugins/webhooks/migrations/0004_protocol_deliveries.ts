import type { Migration } from '@gw/kernel';

/**
 * Protocol deliveries (issue 39): events another plugin writes in its own wire format (a BTCPay
 * webhook's body) for one subscription of its own, signed by that plugin's signer
 * (`WEBHOOK_SIGNERS`) with the subscription's secret instead of the project's API secrets. `signer`
 * names the signer, `signer_ref` the subscription; both are null for the gateway's own events.
 * They go through the same outbox, retries and delivery log; the index lists a subscription's
 * deliveries newest first.
 */
export const m0004ProtocolDeliveries: Migration = {
  name: '0004_protocol_deliveries',
  async up(knex) {
    await knex.raw(`
      alter table webhooks_events add column signer text null, add column signer_ref text null;
      alter table webhooks_events add constraint webhooks_events_signer_check check ((signer is null) = (signer_ref is null));
      comment on column webhooks_events.signer is 'the WEBHOOK_SIGNERS id that signs this event (a protocol delivery, e.g. btcpay); null: signed with the project''s API secrets';
      comment on column webhooks_events.signer_ref is 'the signer''s subscription this event goes to (e.g. a btcpay_webhooks id)';
      create index webhooks_events_signer on webhooks_events (signer, signer_ref, id desc) where signer is not null;`);
  },
  async down(knex) {
    await knex.raw(`
      drop index webhooks_events_signer;
      alter table webhooks_events drop constraint webhooks_events_signer_check;
      alter table webhooks_events drop column signer_ref, drop column signer;`);
  },
};

import type { Migration } from '@gw/kernel';

/**
 * `btcpay_pull_payments`: the pull payments of the Greenfield API (issue 39), each one refund of the
 * payouts plugin. The row holds what BTCPay's `PullPaymentData` shows and the refund does not: its
 * own random id (the refund's id is no secret, the pull payment's is: its public reads show the
 * claim link), the name, description, currency and amount as the request stated them, and the
 * claim token (sealed: the refund's view drops its claim link once claimed, BTCPay's `viewLink` stays).
 */
export const m0003BtcpayPullPayments: Migration = {
  name: '0003_btcpay_pull_payments',
  async up(knex) {
    await knex.raw(`
      create table btcpay_pull_payments (
        id text primary key,
        project_id text not null,
        refund_id text not null,
        session_id text not null,
        variant text null check (variant in ('RateThen', 'CurrentRate', 'Fiat', 'OverpaidAmount', 'Custom')),
        name text not null,
        description text not null,
        currency text not null,
        amount text not null,
        sealed_claim_token text null,
        created_at timestamptz not null default now()
      );
      create unique index btcpay_pull_payments_refund on btcpay_pull_payments (refund_id);
      create index btcpay_pull_payments_project on btcpay_pull_payments (project_id, created_at desc, id desc);
      create index btcpay_pull_payments_session on btcpay_pull_payments (session_id);
      comment on table btcpay_pull_payments is 'a Greenfield pull payment is one refund of the payouts plugin (refund_id) of a BTCPay invoice (session_id)';
      comment on column btcpay_pull_payments.id is 'random, 160 bits: whoever holds it reads the pull payment and its claim link (GET /api/v1/pull-payments/{id} is public, as in BTCPay)';
      comment on column btcpay_pull_payments.variant is 'the refundVariant of POST .../invoices/{id}/refund; null for POST /stores/{id}/pull-payments';
      comment on column btcpay_pull_payments.amount is 'decimal in currency, as answered (after subtractPercentage)';
      comment on column btcpay_pull_payments.sealed_claim_token is 'the refund''s claim token sealed by the kernel SecretBox (aad btcpay_pull_payments:<id>); null when the refund was created without a claim link';`);
  },
  async down(knex) {
    await knex.raw('drop table if exists btcpay_pull_payments;');
  },
};

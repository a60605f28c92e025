import type { Migration } from '@gw/kernel';

/**
 * The btcpay plugin's tables (issue 39):
 * - `btcpay_api_keys`: Greenfield API keys (`Authorization: token <key>`), stored as a SHA-256 hash,
 *   each tied to one operator and the user who approved it, with the BTCPay permissions it was granted
 *   (`btcpay.store.canviewinvoices:<storeId>`, a store being a project of that operator);
 * - `btcpay_invoices`: what a BTCPay invoice adds to the checkout session it is (the order id, the
 *   BTCPay metadata and checkout options as given, a status marked by the merchant);
 * - `btcpay_webhooks`: a store's Greenfield webhooks, each with its own secret (sealed by the
 *   kernel's SecretBox), delivered through the webhooks plugin's outbox.
 */
export const m0001Btcpay: Migration = {
  name: '0001_btcpay',
  async up(knex) {
    await knex.raw(`
      create table btcpay_api_keys (
        id text primary key,
        operator_id text not null,
        user_id text not null,
        label text not null,
        application_identifier text null,
        token_hash text not null,
        token_hint text not null,
        permissions jsonb not null,
        created_at timestamptz not null default now(),
        last_used_at timestamptz null,
        revoked_at timestamptz null,
        revoked_by text null
      );
      create unique index btcpay_api_keys_token on btcpay_api_keys (token_hash);
      create index btcpay_api_keys_operator on btcpay_api_keys (operator_id, created_at desc, id desc);
      comment on column btcpay_api_keys.token_hash is 'hex SHA-256 of the key; the key itself is shown once, to the application that asked for it';
      comment on column btcpay_api_keys.permissions is 'JSON array of BTCPay permission strings as granted (store-bound ones end in :<project id>)';

      create table btcpay_invoices (
        session_id text primary key,
        project_id text not null,
        order_id text null,
        metadata jsonb not null default '{}'::jsonb,
        checkout jsonb not null default '{}'::jsonb,
        marked_status text null check (marked_status in ('Invalid', 'Settled')),
        marked_at timestamptz null,
        created_at timestamptz not null default now()
      );
      create index btcpay_invoices_project on btcpay_invoices (project_id, created_at desc, session_id desc);
      create index btcpay_invoices_order on btcpay_invoices (project_id, order_id) where order_id is not null;
      comment on table btcpay_invoices is 'a BTCPay invoice is a checkout session of the sessions plugin (same id); this row holds what Greenfield adds to it';

      create table btcpay_webhooks (
        id text primary key,
        project_id text not null,
        url text not null,
        enabled boolean not null default true,
        automatic_redelivery boolean not null default true,
        everything boolean not null default true,
        specific_events jsonb not null default '[]'::jsonb,
        sealed_secret text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index btcpay_webhooks_project on btcpay_webhooks (project_id, created_at, id);`);
  },
  async down(knex) {
    await knex.raw('drop table if exists btcpay_webhooks; drop table if exists btcpay_invoices; drop table if exists btcpay_api_keys;');
  },
};

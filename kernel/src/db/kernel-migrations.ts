import type { Migration } from './migration.js';

/** The kernel's own tables: rate-limit counters, the audit log and the gateways' listening addresses. */
export const kernelMigrations: readonly Migration[] = [
  {
    name: '0001_rate_limits_and_audit',
    async up(knex) {
      await knex.schema.createTable('kernel_rate_limit_counters', (t) => {
        t.text('key').notNullable();
        t.bigInteger('window_start').notNullable().comment('Unix seconds at which the fixed window opened');
        t.integer('count').notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.primary(['key', 'window_start']);
        t.index(['expires_at']);
      });
      await knex.schema.createTable('kernel_audit_log', (t) => {
        t.string('id', 26).primary();
        t.text('actor').notNullable();
        t.text('channel').notNullable();
        t.text('action').notNullable();
        t.string('project_id', 26).nullable();
        t.text('target').nullable();
        t.jsonb('details').nullable();
        t.string('request_id', 128).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
        t.index(['project_id', 'created_at']);
        t.index(['action', 'created_at']);
      });
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system'))`);
    },
    async down(knex) {
      await knex.schema.dropTable('kernel_audit_log');
      await knex.schema.dropTable('kernel_rate_limit_counters');
    },
  },
  {
    // The audit log read by the dashboard (AuditLog.list): newest first per project, one record's
    // rows (an invoice's timeline), one actor's rows, each a short index range.
    name: '0002_audit_read_indexes',
    async up(knex) {
      await knex.raw('create index kernel_audit_log_project_id on kernel_audit_log (project_id, id desc)');
      await knex.raw('create index kernel_audit_log_target on kernel_audit_log (target, id desc) where target is not null');
      await knex.raw('create index kernel_audit_log_actor on kernel_audit_log (actor, id desc)');
    },
    async down(knex) {
      await knex.raw('drop index kernel_audit_log_actor');
      await knex.raw('drop index kernel_audit_log_target');
      await knex.raw('drop index kernel_audit_log_project_id');
    },
  },
  {
    // Where the running gateway processes listen (HttpListeners): `gateway doctor` run elsewhere
    // reports the real address, not its own default port.
    name: '0003_http_listeners',
    async up(knex) {
      await knex.raw(`create table kernel_http_listeners (
        id text primary key,
        url text not null,
        role text not null,
        hostname text not null,
        pid integer not null,
        started_at timestamptz not null default now()
      )`);
    },
    async down(knex) {
      await knex.raw('drop table kernel_http_listeners');
    },
  },
  {
    // A payer's claim of a refund (issue 37) is written from its public claim page, by whoever holds
    // the claim link: its own channel, not a partner's REST call.
    name: '0004_audit_claim_page_channel',
    async up(knex) {
      await knex.raw('alter table kernel_audit_log drop constraint kernel_audit_log_channel_check');
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system', 'claim_page'))`);
    },
    async down(knex) {
      await knex.raw('alter table kernel_audit_log drop constraint kernel_audit_log_channel_check');
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system'))`);
    },
  },
  {
    // A payer's actions on a checkout session or payment link (issue 38: the coin picked, the
    // receipt e-mail given, a link opened) come from the public session and link pages.
    name: '0005_audit_payer_page_channel',
    async up(knex) {
      await knex.raw('alter table kernel_audit_log drop constraint kernel_audit_log_channel_check');
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system', 'claim_page', 'payer_page'))`);
    },
    async down(knex) {
      await knex.raw('alter table kernel_audit_log drop constraint kernel_audit_log_channel_check');
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system', 'claim_page'))`);
    },
  },
  {
    // The BTCPay-compatible API (issue 39): writes by a shop plugin through a Greenfield API key
    // come through their own channel, beside the partner REST API's.
    name: '0006_audit_btcpay_channel',
    async up(knex) {
      await knex.raw('alter table kernel_audit_log drop constraint kernel_audit_log_channel_check');
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system', 'claim_page', 'payer_page', 'btcpay'))`);
    },
    async down(knex) {
      await knex.raw('alter table kernel_audit_log drop constraint kernel_audit_log_channel_check');
      await knex.raw(`alter table kernel_audit_log add constraint kernel_audit_log_channel_check
        check (channel in ('rest', 'mcp', 'cli', 'dashboard', 'system', 'claim_page', 'payer_page'))`);
    },
  },
];

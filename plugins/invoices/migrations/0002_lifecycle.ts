import type { Migration } from '@gw/kernel';

/**
 * The lifecycle's bookkeeping: `event_counts` numbers the events an invoice has sent per type (the
 * table's event-id policies derive ids from it, so a retried or replayed command computes the same
 * id), and a transfer can be `dropped` (left the mempool without a block).
 */
export const m0002Lifecycle: Migration = {
  name: '0002_lifecycle',
  async up(knex) {
    await knex.raw(`alter table invoices_invoices add column event_counts jsonb not null default '{}'`);
    await knex.raw(`alter table invoices_transactions drop constraint invoices_transactions_status_check`);
    await knex.raw(
      `alter table invoices_transactions add constraint invoices_transactions_status_check check (status in ('pending', 'confirmed', 'reverted', 'dropped'))`,
    );
    // Expiry walks the waiting invoices by deadline.
    await knex.raw(`create index invoices_invoices_expiring on invoices_invoices (expires_at) where status in ('pending', 'partial', 'ambiguous')`);
  },
  async down(knex) {
    await knex.raw(`drop index invoices_invoices_expiring`);
    await knex.raw(`update invoices_transactions set status = 'reverted' where status = 'dropped'`);
    await knex.raw(`alter table invoices_transactions drop constraint invoices_transactions_status_check`);
    await knex.raw(
      `alter table invoices_transactions add constraint invoices_transactions_status_check check (status in ('pending', 'confirmed', 'reverted'))`,
    );
    await knex.raw(`alter table invoices_invoices drop column event_counts`);
  },
};

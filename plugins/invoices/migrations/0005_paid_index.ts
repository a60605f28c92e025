import type { Migration } from '@gw/kernel';

/**
 * The dashboard's overview sums each project's payments of the last day and week by `paid_at`
 * (issue 20): a partial index keeps that a short range scan however many invoices a project has.
 */
export const m0005PaidIndex: Migration = {
  name: '0005_paid_index',
  async up(knex) {
    await knex.raw(`create index invoices_invoices_project_paid on invoices_invoices (project_id, paid_at) where paid_at is not null`);
  },
  async down(knex) {
    await knex.raw(`drop index invoices_invoices_project_paid`);
  },
};

import type { Migration } from '@gw/kernel';

/**
 * Underpayment tolerance (issue 38): a project policy, the share of an invoice's amount a payment
 * may fall short by and still settle as paid (null: the default, none), and its snapshot on each
 * invoice at creation (existing invoices: 0, as they were created without one).
 */
export const m0006UnderpaymentTolerance: Migration = {
  name: '0006_underpayment_tolerance',
  async up(knex) {
    await knex.raw(`alter table invoices_project_policies add column underpayment_tolerance numeric
      constraint invoices_project_policies_tolerance_check check (underpayment_tolerance >= 0 and underpayment_tolerance <= 0.05)`);
    await knex.raw(`alter table invoices_invoices add column underpayment_tolerance numeric not null default 0
      constraint invoices_invoices_tolerance_check check (underpayment_tolerance >= 0 and underpayment_tolerance <= 0.05)`);
  },
  async down(knex) {
    await knex.raw(`alter table invoices_invoices drop column underpayment_tolerance`);
    await knex.raw(`alter table invoices_project_policies drop column underpayment_tolerance`);
  },
};

import { contribute, withDeps } from '@gw/kernel';
import { SANDBOX_PROJECT_PURGERS } from '@gw/plugin-sandbox/contract';

/**
 * The btcpay plugin's tables that hold rows of a project (by `project_id`), every one of them: a
 * table added by a later migration is listed here too (a test compares the list with the schema).
 */
export const PROJECT_TABLES = ['btcpay_invoices', 'btcpay_webhooks', 'btcpay_webhook_invoices', 'btcpay_pull_payments'] as const;

/**
 * A sandbox project's reset or deletion removes what the Greenfield API holds of it (its BTCPay
 * invoices, its webhooks and what they announced of each invoice, its pull payments), in the
 * sandbox's transaction: the sessions, invoices, refunds and events they
 * point at go with their own plugins' purgers. API keys belong to the operator, not to a project:
 * a key bound to a deleted project reaches nothing.
 */
export const btcpaySandboxPurger = contribute(
  SANDBOX_PROJECT_PURGERS,
  withDeps([], () => [
    {
      name: 'btcpay_invoices_and_webhooks',
      async purge(trx, projectId) {
        let removed = 0;
        for (const table of PROJECT_TABLES) removed += await trx(table).where('project_id', projectId).delete();
        return removed;
      },
    },
  ]),
);

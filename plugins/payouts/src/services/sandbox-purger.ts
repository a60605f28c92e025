import { contribute, withDeps } from '@gw/kernel';
import { SANDBOX_PROJECT_PURGERS } from '@gw/plugin-sandbox/contract';

/**
 * A sandbox project's reset or deletion removes its refunds and payouts (their approvals go with
 * them) and its approval policy, in the sandbox's transaction: no item of a purged invoice stays.
 */
export const sandboxProjectPurger = contribute(
  SANDBOX_PROJECT_PURGERS,
  withDeps([], () => [
    {
      name: 'refunds_and_payouts',
      async purge(trx, projectId) {
        const items = await trx('payouts_items').where('project_id', projectId).delete();
        await trx('payouts_policies').where('project_id', projectId).delete();
        return items;
      },
    },
  ]),
);

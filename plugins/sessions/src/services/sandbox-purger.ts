import { contribute, withDeps } from '@gw/kernel';
import { SANDBOX_PROJECT_PURGERS } from '@gw/plugin-sandbox/contract';

/**
 * A sandbox project's reset or deletion removes its checkout sessions (their invoice rows go with
 * them) and payment links, in the sandbox's transaction: no session of a purged invoice stays.
 */
export const sandboxProjectPurger = contribute(
  SANDBOX_PROJECT_PURGERS,
  withDeps([], () => [
    {
      name: 'checkout_sessions_and_payment_links',
      async purge(trx, projectId) {
        const sessions = await trx('sessions_sessions').where('project_id', projectId).delete();
        const links = await trx('sessions_links').where('project_id', projectId).delete();
        return sessions + links;
      },
    },
  ]),
);

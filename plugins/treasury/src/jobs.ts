import { type Actor, AppError, type JobDefinition, withDeps } from '@gw/kernel';
import type { Logger } from 'pino';
import { ACCOUNT_BROADCAST_JOB, BROADCAST_JOB, RECONCILE_JOB, TRACK_JOB } from './plan-status.js';
import type { TreasuryScope } from './services/treasury-scope.js';

/**
 * A job sending the plans named in its jobs' data, a few at a time, as the system. A refusal is
 * final (the plan is failed, or no longer signed): recorded, not retried. Anything else (a
 * provider out of reach) fails the job, which pg-boss retries with backoff.
 */
function broadcastJob(
  name: string,
  broadcaster: { broadcast(planId: string, scope: TreasuryScope, actor: Actor): Promise<unknown> },
  logger: Logger,
  refused: string,
): JobDefinition {
  return {
    name,
    queue: { retryLimit: 20, retryDelay: 10, retryBackoff: true, retryDelayMax: 600, retentionSeconds: 7 * 86_400, deleteAfterSeconds: 86_400 },
    work: { batchSize: 5, pollingIntervalSeconds: 2 },
    handler: async (jobs) => {
      for (const job of jobs as { data: { planId: string } }[]) {
        try {
          await broadcaster.broadcast(job.data.planId, {}, { actor: 'system', channel: 'system' });
        } catch (error) {
          if (error instanceof AppError) logger.warn({ plan: job.data.planId, code: error.code }, refused);
          else throw error;
        }
      }
    },
  };
}

/**
 * `treasury.broadcast`: sends a plan signed with `broadcast` asked (written in the import's
 * transaction); a provider that cannot be reached fails the job, which pg-boss retries.
 * `treasury.track` (cron): plans waiting for their fee, broadcast plans' confirmations and reorgs,
 * open plans whose inputs another transaction spent; account plans' stages (the next sent once the
 * previous is confirmed). `treasury.account-broadcast`: the first stage of an account plan. `treasury.reconcile` (cron): the recorded
 * outputs against the providers'.
 */
export const treasuryJobs = withDeps(
  ['treasuryConfig', 'treasuryTracker', 'treasuryAccountBroadcaster', 'treasuryReconciliation', 'logger'],
  (deps): JobDefinition[] => [
    broadcastJob(BROADCAST_JOB, deps.treasuryTracker, deps.logger, 'treasury broadcast refused'),
    broadcastJob(ACCOUNT_BROADCAST_JOB, deps.treasuryAccountBroadcaster, deps.logger, 'treasury account broadcast refused'),
    {
      name: TRACK_JOB,
      queue: { retryLimit: 0, retentionSeconds: 3600, deleteAfterSeconds: 3600 },
      work: { batchSize: 1, pollingIntervalSeconds: 5 },
      schedule: { cron: deps.treasuryConfig.trackCron, data: {} },
      handler: async () => {
        // Both trackers run each pass: one failing (a provider out of reach) does not hold up the other.
        try {
          await deps.treasuryTracker.track();
        } catch (error) {
          deps.logger.warn({ err: error }, 'treasury UTXO plans not tracked');
        }
        // Account plans: confirmations of the stage sent, the next stage once it is confirmed.
        try {
          await deps.treasuryAccountBroadcaster.track();
        } catch (error) {
          deps.logger.warn({ err: error }, 'treasury account plans not tracked');
        }
      },
    },
    {
      name: RECONCILE_JOB,
      queue: { retryLimit: 0, retentionSeconds: 86_400, deleteAfterSeconds: 86_400 },
      work: { batchSize: 1, pollingIntervalSeconds: 10 },
      schedule: { cron: deps.treasuryConfig.reconcileCron, data: {} },
      handler: async () => {
        await deps.treasuryReconciliation.runAll();
      },
    },
  ],
);

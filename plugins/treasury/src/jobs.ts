import { AppError, type JobDefinition, withDeps } from '@gw/kernel';
import { ACCOUNT_BROADCAST_JOB, BROADCAST_JOB, RECONCILE_JOB, TRACK_JOB } from './plan-status.js';

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
    {
      name: BROADCAST_JOB,
      queue: { retryLimit: 20, retryDelay: 10, retryBackoff: true, retryDelayMax: 600, retentionSeconds: 7 * 86_400, deleteAfterSeconds: 86_400 },
      work: { batchSize: 5, pollingIntervalSeconds: 2 },
      handler: async (jobs) => {
        for (const job of jobs as { data: { planId: string } }[]) {
          try {
            await deps.treasuryTracker.broadcast(job.data.planId, {}, { actor: 'system', channel: 'system' });
          } catch (error) {
            // A refusal is final (the plan is failed, or no longer signed): recorded, not retried.
            // Anything else (a provider out of reach) fails the job, which pg-boss retries.
            if (error instanceof AppError) deps.logger.warn({ plan: job.data.planId, code: error.code }, 'treasury broadcast refused');
            else throw error;
          }
        }
      },
    },
    {
      name: ACCOUNT_BROADCAST_JOB,
      queue: { retryLimit: 20, retryDelay: 10, retryBackoff: true, retryDelayMax: 600, retentionSeconds: 7 * 86_400, deleteAfterSeconds: 86_400 },
      work: { batchSize: 5, pollingIntervalSeconds: 2 },
      handler: async (jobs) => {
        for (const job of jobs as { data: { planId: string } }[]) {
          try {
            await deps.treasuryAccountBroadcaster.broadcast(job.data.planId, {}, { actor: 'system', channel: 'system' });
          } catch (error) {
            if (error instanceof AppError) deps.logger.warn({ plan: job.data.planId, code: error.code }, 'treasury account broadcast refused');
            else throw error;
          }
        }
      },
    },
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

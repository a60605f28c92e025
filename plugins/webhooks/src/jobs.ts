import { type JobDefinition, withDeps } from '@gw/kernel';
import { DELIVER_JOB, REDELIVER_JOB, type DeliverJobData, type RedeliverJobData } from './delivery-status.js';

/**
 * `webhooks.deliver`: one job per delivery attempt, written by the outbox in the transaction of
 * the change (first attempt) or of the previous attempt's record (retries, with `startAfter`).
 * Inserts NOTIFY the workers, so a delivery starts at once instead of at the next poll; workers
 * fetch `batchSize` jobs at a time and keep fetching while batches come back full.
 *
 * pg-boss's own retries only cover a worker that died mid-batch (the jobs expire after
 * `expireInSeconds` and run again; the attempt guard in DeliveryWorker drops what was recorded)
 * and a batch whose record failed.
 * The partner-facing retry schedule is ours (retry-schedule.ts).
 */
export const webhooksJobs = withDeps(['webhooksConfig', 'webhooksDeliveryWorker', 'webhooksEventLog'], (deps): JobDefinition[] => {
  const config = deps.webhooksConfig;
  const deliver: JobDefinition<DeliverJobData> = {
    name: DELIVER_JOB,
    // A failed batch (its record could not be written: the database failing, or a bug) goes back
    // with backoff capped at an hour, so its events are retried for the whole retention time
    // instead of for the quarter of an hour that 1000 retries one second apart would last.
    queue: {
      notify: true,
      retryLimit: 1000,
      retryDelay: 1,
      retryBackoff: true,
      retryDelayMax: 3600,
      expireInSeconds: config.expireInSeconds,
      retentionSeconds: 14 * 86_400,
      deleteAfterSeconds: 86_400,
    },
    work: {
      batchSize: config.batchSize,
      localConcurrency: config.workers,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 1,
      notifyPollingIntervalSeconds: 5,
    },
    handler: (jobs) => deps.webhooksDeliveryWorker.deliver(jobs),
  };
  // `webhooks.redeliver`: a redelivery asked for while the event was still on its way, run after
  // its pending attempt (EventLog.redeliverDue puts itself off again while it is still pending).
  const redeliver: JobDefinition<RedeliverJobData> = {
    name: REDELIVER_JOB,
    queue: { notify: false, retryLimit: 10, retryDelay: 5, retryBackoff: true, retentionSeconds: 14 * 86_400, deleteAfterSeconds: 86_400 },
    work: { batchSize: 20, pollingIntervalSeconds: 1 },
    handler: async (jobs) => {
      for (const job of jobs) await deps.webhooksEventLog.redeliverDue(job.data.eventId);
    },
  };
  return [deliver, redeliver];
});

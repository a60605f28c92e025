import { type JobDefinition, withDeps } from '@gw/kernel';
import { REDELIVER_JOB, type RedeliverJobData } from './delivery-status.js';

/**
 * The plugin's one queue, `webhooks.redeliver`. Deliveries themselves are not pg-boss jobs: the
 * delivery workers claim due `webhooks_events` rows directly (DeliveryWorker, ADR 0013).
 */
export const webhooksJobs = withDeps(['webhooksEventLog'], (deps): JobDefinition[] => {
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
  return [redeliver];
});

import { type JobDefinition, withDeps } from '@gw/kernel';

/** Every `plugins.x402.followCron`: the settlements left `submitted` or `pending` are followed to their outcome. */
export const FOLLOW_JOB = 'x402.follow';

/**
 * `x402.follow` (cron, default every minute): `SettlementFollower.follow`, which records the
 * outcome of settlements not mined while their settler waited, and fails those the node dropped.
 * A pass that cannot read the database fails; the next slot runs again (no retries pile up).
 */
export const x402Jobs = withDeps(['x402Config', 'x402SettlementFollower', 'logger'], (deps): JobDefinition<Record<string, never>>[] =>
  // With settlement off there is nothing to follow: no queue, no schedule, no worker polling.
  deps.x402Config.settlement === 'off'
    ? []
    : [
        {
          name: FOLLOW_JOB,
          queue: { retryLimit: 0, retentionSeconds: 3600, deleteAfterSeconds: 3600, expireInSeconds: 300 },
          work: { batchSize: 1, pollingIntervalSeconds: 5 },
          schedule: { cron: deps.x402Config.followCron, data: {} },
          handler: async () => {
            const report = await deps.x402SettlementFollower.follow();
            if (report.looked > 0) deps.logger.info({ ...report }, 'x402 settlements followed');
          },
        },
      ],
);

import { type JobDefinition, withDeps } from '@gw/kernel';
import { REPLENISH_JOB, type ReplenishJobData } from './job-names.js';

/**
 * `address-pool.replenish`: every minute over every verified pool, and on demand for one pool
 * (sent by `allocate` when a pool runs low). After replenishing it warns about pools whose gap
 * exceeds `gapWarningThreshold` on chains where BIP44 gap limits apply.
 */
export const addressPoolJobs = withDeps(
  ['addressPoolReplenisher', 'logger', 'addressPoolConfig', 'addressPoolStatus'],
  (deps): JobDefinition<ReplenishJobData>[] => {
    return [
      {
        name: REPLENISH_JOB,
        queue: { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 300 },
        work: { pollingIntervalSeconds: 1 },
        schedule: { cron: '* * * * *', data: {} },
        handler: async (jobs) => {
          const seen = new Set<string>();
          for (const job of jobs) {
            const filter = { ...(job.data.projectId ? { projectId: job.data.projectId } : {}), ...(job.data.chain ? { chain: job.data.chain } : {}) };
            const key = `${filter.projectId ?? '*'}:${filter.chain ?? '*'}`;
            if (seen.has(key)) continue;
            seen.add(key);
            const reports = await deps.addressPoolReplenisher.replenish(filter);
            for (const report of reports) {
              if (report.derived > 0 || report.recycled > 0) deps.logger.info(report, 'address pool replenished');
            }
            const threshold = deps.addressPoolConfig.gapWarningThreshold;
            for (const pool of await deps.addressPoolStatus.status(filter, { listAwaitingActivation: false })) {
              if (pool.gap_limit_applies && pool.gap > threshold) {
                deps.logger.warn(
                  { projectId: pool.project_id, chain: pool.chain, gap: pool.gap, threshold },
                  'address pool gap exceeds the gap limit: wallet software scanning with this gap limit may not see funds on later addresses',
                );
              }
            }
          }
        },
      },
    ];
  },
);

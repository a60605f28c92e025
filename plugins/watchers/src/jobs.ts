import type { Cradle, JobDefinition } from '@gw/kernel';

/** The pg-boss queue of scan passes: one job per pass of one chain network. */
export const SCAN_JOB = 'watchers.scan';

/** A pass of one network; the minute's schedule carries neither and starts every network's loop. */
export interface ScanJobData {
  readonly chain?: string;
  readonly network?: string;
}

/**
 * `watchers.scan`: each configured network runs a loop of passes. A pass ends by sending the next
 * one (at once while it is behind the tip, else after `scanIntervalSeconds`). The queue's
 * `stately` policy with the network as singleton key allows one queued and one active pass per
 * network across every worker instance; the advisory lock in ChainScanner makes the one active
 * pass certain. The schedule every minute (re)starts any loop that stopped (a worker died
 * between two passes).
 */
export function watchersJobs(cradle: Cradle): JobDefinition<ScanJobData>[] {
  const next = async (chain: string, network: string, startAfterSeconds: number) => {
    await cradle.jobs.send(SCAN_JOB, { chain, network } satisfies ScanJobData, { singletonKey: `${chain}:${network}`, ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}) });
  };
  return [
    {
      name: SCAN_JOB,
      queue: { policy: 'stately', retryLimit: 0, expireInSeconds: 600, deleteAfterSeconds: 3600 },
      work: { pollingIntervalSeconds: 1, batchSize: 1 },
      schedule: { cron: '* * * * *', data: {} },
      handler: async (jobs) => {
        for (const job of jobs) {
          if (!job.data.chain || !job.data.network) {
            for (const target of cradle.watchersRegistry.list()) await next(target.adapter.definition.id, target.network, 0);
            continue;
          }
          const target = cradle.watchersRegistry.get(job.data.chain, job.data.network);
          if (!target) continue;
          const report = await cradle.watchersScanner.pass(target);
          // A pass that found the lock taken leaves the loop to the instance holding it.
          if (report.ran) await next(job.data.chain, job.data.network, report.behind ? 0 : cradle.watchersConfig.scanIntervalSeconds);
        }
      },
    },
  ];
}

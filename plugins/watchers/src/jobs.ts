import { type Cradle, type JobDefinition, withDeps } from '@gw/kernel';
import { idlePassSeconds, type ScanReport, type ScanTarget } from './services/chain-scanner.js';

/** The pg-boss queue of scan passes: one job per pass of one chain network. */
export const SCAN_JOB = 'watchers.scan';

/** The activation checks of every watched network whose chain needs address activation (TRON). */
export const ACTIVATION_JOB = 'watchers.activation';

/** A pass of one network; the minute's schedule carries neither and starts every network's loop. */
export interface ScanJobData {
  readonly chain?: string;
  readonly network?: string;
}

/**
 * Queues the next pass of one network, `startAfterSeconds` from now. While one is already queued
 * (the `stately` policy, keyed by the network) this is a no-op.
 */
export async function sendScanPass(deps: Pick<Cradle, 'jobs'>, chain: string, network: string, startAfterSeconds = 0): Promise<void> {
  await deps.jobs.send(SCAN_JOB, { chain, network } satisfies ScanJobData, {
    singletonKey: `${chain}:${network}`,
    ...(startAfterSeconds > 0 ? { startAfter: startAfterSeconds } : {}),
  });
}

/**
 * When the loop's next pass of `target` starts, in seconds from now, after the pass that `report`
 * tells of: at once while it is behind the tip; after `idlePassSeconds` (a minute) while the
 * network is idle (a default network with no cursor and no pool address waiting: the pass did
 * nothing); else after the network's scan interval.
 */
export function nextPassDelaySeconds(target: ScanTarget, report: ScanReport): number {
  if (report.ran && report.behind) return 0;
  return report.idle ? idlePassSeconds(target) : target.scanIntervalSeconds;
}

/**
 * `watchers.scan`: each watched network runs a loop of passes. A pass ends by sending the next
 * one (`nextPassDelaySeconds`: at once while it is behind the tip, a minute later while the
 * network is idle, else after the network's scan interval). The queue's
 * `stately` policy with the network as singleton key allows one queued and one active pass per
 * network across every worker instance; the advisory lock in ChainScanner makes the one active
 * pass certain. Every worker instance starts each loop when it starts; the schedule every
 * minute restarts any loop that stopped (a worker died between two passes); a worker that died
 * during a pass gives up its active slot when its job's heartbeat stops.
 */
export const watchersJobs = withDeps(
  ['jobs', 'watchersRegistry', 'watchersScanner', 'watchersConfig', 'watchersActivation'],
  (deps): JobDefinition<ScanJobData>[] => {
    const next = (chain: string, network: string, startAfterSeconds: number) => sendScanPass(deps, chain, network, startAfterSeconds);
    return [
      {
        name: SCAN_JOB,
        // The heartbeat: a worker that dies mid-pass (SIGKILL, a lost machine) stops refreshing its
        // active job, and the monitor fails it within heartbeatSeconds plus the supervision interval.
        // Without it, the dead pass held the network's one active slot until its expiry (10
        // minutes): no pass anywhere in between. A live worker's long pass keeps refreshing it.
        queue: { policy: 'stately', retryLimit: 0, expireInSeconds: 600, heartbeatSeconds: 10, deleteAfterSeconds: 3600 },
        // pg-boss's shortest poll: a pass due after the scan interval starts at most half a second late.
        work: { pollingIntervalSeconds: 0.5, batchSize: 1 },
        schedule: { cron: '* * * * *', data: {} },
        handler: async (jobs) => {
          for (const job of jobs) {
            if (!job.data.chain || !job.data.network) {
              for (const target of deps.watchersRegistry.list()) await next(target.adapter.definition.id, target.network, 0);
              continue;
            }
            const target = deps.watchersRegistry.get(job.data.chain, job.data.network);
            if (!target) continue;
            const report = await deps.watchersScanner.pass(target);
            // Also when the lock was taken (by a pass outside the loop, or one whose job expired): the
            // `stately` queue keeps a single queued pass, so the loop never doubles and never stops.
            await next(job.data.chain, job.data.network, nextPassDelaySeconds(target, report));
          }
        },
      },
      {
        // `watchers.activation`: every `activationIntervalMinutes`, each watched network of a chain whose
        // addresses need activation asks which of its unactivated pool addresses exist on chain by now
        // (ActivationDetector). One pass at a time across instances; a provider failure waits for the next.
        // An idle network is not skipped: TRON hands invoices activated addresses only, so none waits
        // there before this check (or a person) finds one activated; and a network without
        // unactivated pool addresses of its projects asks its providers nothing.
        name: ACTIVATION_JOB,
        queue: { policy: 'singleton', retryLimit: 0, expireInSeconds: 600, deleteAfterSeconds: 3600 },
        work: { pollingIntervalSeconds: 2, batchSize: 1 },
        schedule: { cron: `*/${deps.watchersConfig.activationIntervalMinutes} * * * *`, data: {} },
        handler: async () => {
          for (const target of deps.watchersRegistry.list()) {
            if (!target.adapter.definition.capabilities.requiresActivation) continue;
            await deps.watchersActivation.pass(target);
          }
        },
      },
    ];
  },
);

import { createFailureLog, type JobDefinition, withDeps } from '@gw/kernel';

/** The pg-boss queue that refreshes every asset from every provider (scheduled, default every minute). */
export const REFRESH_JOB = 'rates.refresh';

/**
 * `rates.refresh`: keeps the shared cache warm so `quote()` rarely fetches on the request path, and
 * keeps each provider's row fresh so a fallback is ready when the preferred provider fails.
 * Provider failures are logged, not thrown: the next slot retries, and a retried job would only
 * hit the same failing provider again. Each provider's failure is logged by the rate service (once
 * per streak, then a count and a recovery line); the job adds one line when every provider failed,
 * logged the same way, so an offline gateway does not write an error every minute.
 */
export const ratesJobs = withDeps(['logger', 'ratesConfig', 'ratesService'], (deps): JobDefinition<Record<string, never>>[] => {
  const allFailed = createFailureLog(deps.logger, {
    failed: 'rates refresh: every provider failed; quotes age towards maxAgeSeconds',
    stillFailing: 'rates refresh: every provider still failing',
    recovered: 'rates refresh: a provider answers again',
    level: 'error',
  });
  return [
    {
      name: REFRESH_JOB,
      queue: { retryLimit: 0, expireInSeconds: 120 },
      work: { pollingIntervalSeconds: 2 },
      schedule: { cron: deps.ratesConfig.refreshCron, data: {} },
      handler: async () => {
        const { providers } = await deps.ratesService.refresh();
        const failed = providers.filter((p) => !p.ok);
        if (failed.length === providers.length && failed.length > 0) {
          allFailed.failed('all', failed.map((p) => p.error).join('; '), { providers: failed.map((p) => p.provider) });
        } else {
          allFailed.succeeded('all');
        }
      },
    },
  ];
});

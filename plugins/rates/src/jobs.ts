import type { Cradle, JobDefinition } from '@gw/kernel';

/** The pg-boss queue that refreshes every asset from every provider (scheduled, default every minute). */
export const REFRESH_JOB = 'rates.refresh';

/**
 * `rates.refresh`: keeps the shared cache warm so `quote()` rarely fetches on the request path, and
 * keeps each provider's row fresh so a fallback is ready when the preferred provider fails.
 * Provider failures are logged, not thrown: the next slot retries, and a retried job would only
 * hit the same failing provider again.
 */
export function ratesJobs(cradle: Cradle): JobDefinition<Record<string, never>>[] {
  return [
    {
      name: REFRESH_JOB,
      queue: { retryLimit: 0, expireInSeconds: 120 },
      work: { pollingIntervalSeconds: 2 },
      schedule: { cron: cradle.ratesConfig.refreshCron, data: {} },
      handler: async () => {
        const { providers } = await cradle.ratesService.refresh();
        const failed = providers.filter((p) => !p.ok);
        if (failed.length === providers.length && failed.length > 0) {
          cradle.logger.error({ providers: failed }, 'rates refresh: every provider failed; quotes age towards maxAgeSeconds');
        } else if (failed.length > 0) {
          cradle.logger.warn({ providers: failed }, 'rates refresh: some providers failed');
        }
      },
    },
  ];
}

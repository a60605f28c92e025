import { type JobDefinition, withDeps } from '@gw/kernel';

/** The queue of the minute's expiry pass. */
export const EXPIRE_JOB = 'invoices.expire';

/** The actor of the expiry pass (audit channel `system`). */
const EXPIRY_ACTOR = { actor: 'invoice-expiry', channel: 'system' } as const;

/** `invoices.expire`: every minute, invoices past `expires_at` become `expired` (the lifecycle's `deadline_passed`). */
export const invoicesJobs = withDeps(['invoicesLifecycle'], (deps): JobDefinition<Record<string, never>>[] => {
  return [
    {
      name: EXPIRE_JOB,
      queue: { retryLimit: 2, retryDelay: 10, expireInSeconds: 300 },
      work: { pollingIntervalSeconds: 5 },
      schedule: { cron: '* * * * *', data: {} },
      handler: async () => {
        // A backlog is worked through in chunks within the minute.
        while ((await deps.invoicesLifecycle.expireDue(EXPIRY_ACTOR, { limit: 500 })) === 500);
      },
    },
  ];
});

import type { Cradle, JobDefinition } from '@gw/kernel';

/** `tenancy.signature-sweep` (every 10 minutes): deletes seen request signatures past their window. */
export const SIGNATURE_SWEEP_JOB = 'tenancy.signature-sweep';

export function tenancyJobs(cradle: Cradle): JobDefinition[] {
  return [
    {
      name: SIGNATURE_SWEEP_JOB,
      schedule: { cron: '*/10 * * * *' },
      queue: { retryLimit: 2, retryDelay: 60 },
      handler: async () => {
        const removed = await cradle.tenancySignatureGuard.sweep();
        cradle.logger.debug({ removed }, 'request signature sweep');
      },
    },
  ];
}

import { type JobDefinition, withDeps } from '@gw/kernel';

/** `tenancy.signature-sweep` (every 10 minutes): deletes answers of signed requests past their window. */
export const SIGNATURE_SWEEP_JOB = 'tenancy.signature-sweep';

export const tenancyJobs = withDeps(['tenancySignedAnswers', 'logger'], (deps): JobDefinition[] => {
  return [
    {
      name: SIGNATURE_SWEEP_JOB,
      schedule: { cron: '*/10 * * * *' },
      queue: { retryLimit: 2, retryDelay: 60 },
      handler: async () => {
        const removed = await deps.tenancySignedAnswers.sweep();
        deps.logger.debug({ removed }, 'signed answer sweep');
      },
    },
  ];
});

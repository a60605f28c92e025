import { withDeps, type JobDefinition } from '@gw/kernel';

/** `dashboard.session-sweep` (hourly): deletes sessions past their idle or absolute timeout. */
export const SESSION_SWEEP_JOB = 'dashboard.session-sweep';

export const dashboardJobs = withDeps(['dashboardSessions', 'logger'], ({ dashboardSessions, logger }): JobDefinition[] => [
  {
    name: SESSION_SWEEP_JOB,
    schedule: { cron: '37 * * * *' },
    queue: { retryLimit: 2, retryDelay: 60 },
    handler: async () => {
      const removed = await dashboardSessions.sweep();
      logger.debug({ removed }, 'dashboard session sweep');
    },
  },
]);

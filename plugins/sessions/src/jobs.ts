import { type JobDefinition, withDeps } from '@gw/kernel';
import { EXPIRE_JOB, LATE_PAYMENTS_JOB } from './job-names.js';

/**
 * `sessions.expire` (every minute: open sessions past their deadline end, and closed sessions'
 * leftover invoices are cancelled) and `sessions.late-payments` (every minute: payments to
 * abandoned addresses are credited). The mail jobs the engine enqueues are the payer pages'
 * (mail/receipt-email.ts, mail/notice-email.ts).
 */
export const sessionsJobs = withDeps(['sessionsCloser', 'sessionsLatePayments'], (deps): JobDefinition<Record<string, never>>[] => [
  {
    name: EXPIRE_JOB,
    queue: { retryLimit: 2, retryDelay: 10, expireInSeconds: 300 },
    work: { pollingIntervalSeconds: 5 },
    schedule: { cron: '* * * * *', data: {} },
    handler: async () => {
      // One pass pages through every due session, past those still waiting for their invoice.
      await deps.sessionsCloser.expireDue();
    },
  },
  {
    name: LATE_PAYMENTS_JOB,
    queue: { retryLimit: 2, retryDelay: 10, expireInSeconds: 300 },
    work: { pollingIntervalSeconds: 5 },
    schedule: { cron: '* * * * *', data: {} },
    handler: async () => {
      await deps.sessionsLatePayments.run();
    },
  },
]);

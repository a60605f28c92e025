import { type JobDefinition, withDeps } from '@gw/kernel';
import { EXPIRE_JOB, LATE_PAYMENTS_JOB } from './job-names.js';

/** A job of the sessions plugin that runs `pass` every minute (retried twice, ten seconds apart). */
function everyMinute(name: string, pass: () => Promise<unknown>): JobDefinition<Record<string, never>> {
  return {
    name,
    queue: { retryLimit: 2, retryDelay: 10, expireInSeconds: 300 },
    work: { pollingIntervalSeconds: 5 },
    schedule: { cron: '* * * * *', data: {} },
    handler: async () => {
      await pass();
    },
  };
}

/**
 * `sessions.expire` (every minute: open sessions past their deadline end, and closed sessions'
 * leftover invoices are cancelled) and `sessions.late-payments` (every minute: payments to
 * abandoned addresses are credited). The mail jobs the engine enqueues are the payer pages'
 * (mail/receipt-email.ts, mail/notice-email.ts).
 */
export const sessionsJobs = withDeps(['sessionsCloser', 'sessionsLatePayments'], (deps): JobDefinition<Record<string, never>>[] => [
  // One pass pages through every due session, past those still waiting for their invoice.
  everyMinute(EXPIRE_JOB, () => deps.sessionsCloser.expireDue()),
  everyMinute(LATE_PAYMENTS_JOB, () => deps.sessionsLatePayments.run()),
]);

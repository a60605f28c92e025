import type { JobDefinition } from '@gw/kernel';

/**
 * The names of the sessions plugin's jobs, shared by the engine (which enqueues the mails in the
 * transaction of the change they announce) and the pages (which send them).
 */

/** Every minute: open sessions past `expires_at` with nothing being paid become `expired`. */
export const EXPIRE_JOB = 'sessions.expire';
/** Every minute: payments to the addresses of switched-away (cancelled) invoices are credited to their sessions. */
export const LATE_PAYMENTS_JOB = 'sessions.late-payments';
/** The receipt of a completed session, to the payer's e-mail address. */
export const RECEIPT_EMAIL_JOB = 'sessions.receipt-email';
/** A notice of a partial payment with the amount still due, to the payer's e-mail address. */
export const NOTICE_EMAIL_JOB = 'sessions.notice-email';

/** The data of both mail jobs: the session and the invoice the mail is about (everything else is read when it runs). */
export interface SessionMailData {
  readonly sessionId: string;
  readonly invoiceId: string;
}

/** The queue policy of the mail jobs: an SMTP server that is down delays the mail, retried for about a day. */
export const MAIL_QUEUE: NonNullable<JobDefinition['queue']> = {
  retryLimit: 12,
  retryDelay: 60,
  retryBackoff: true,
  retentionSeconds: 172_800,
  deleteAfterSeconds: 86_400,
};

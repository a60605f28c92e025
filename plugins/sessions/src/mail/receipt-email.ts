import { formatTime } from '@gw/plugin-checkout/contract';
import { PAID_STATUSES } from '@gw/plugin-invoices/contract';
import { RECEIPT_EMAIL_JOB } from '../job-names.js';
import { withLang } from '../pages/payer-format.js';
import { sessionMailJob } from './session-mail-job.js';
import { orderText, receivedAmount } from './session-mail.js';

/**
 * `sessions.receipt-email`: the receipt of a completed session, mailed to the payer (the address
 * the partner gave or the payer entered) in the language they used on its page, with the link of
 * the receipt page. Enqueued by the engine in the transaction that completes the session; sent
 * through the oauth plugin's mailer (one SMTP configuration for the installation). An SMTP server
 * that is down fails the job, and pg-boss retries it (`MAIL_QUEUE`): the mail is delayed, not lost.
 * A session without an address, or whose paying invoice is not paid (any more), gets no mail.
 */
export const receiptEmailJob = sessionMailJob({
  name: RECEIPT_EMAIL_JOB,
  due: (session, invoice) => session.status === 'completed' && Boolean(session.receipt_url) && PAID_STATUSES.includes(invoice.status),
  values: (deps, locale, session, invoice) => ({
    order: orderText(locale, deps.chains, session),
    amount: receivedAmount(locale, deps.chains, invoice),
    date: session.completed_at_iso ? formatTime(locale, new Date(session.completed_at_iso)) : '',
    url: withLang(session.receipt_url!, locale),
  }),
  subject: 'mail_receipt_subject',
  text: 'mail_receipt_text',
  unsent: 'sessions: a receipt could not be mailed (no oauth plugin or no SMTP configured)',
});

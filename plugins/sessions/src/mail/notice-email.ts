import { formatDecimal, payerStatus } from '@gw/plugin-checkout/contract';
import { NOTICE_EMAIL_JOB } from '../job-names.js';
import { withLang } from '../pages/payer-format.js';
import { sessionMailJob } from './session-mail-job.js';

/**
 * `sessions.notice-email`: a session's invoice was paid in part. The payer (if an address is known)
 * is told, in the language they used on the session's page, what is still to send and where to
 * finish: the invoice's checkout page. Enqueued by the engine in the transaction of the partial
 * payment; sent and retried as the receipt is. An invoice no longer short by the time the job runs
 * (paid meanwhile), or a session no longer open, gets no notice.
 */
export const noticeEmailJob = sessionMailJob({
  name: NOTICE_EMAIL_JOB,
  due: (session, invoice) => session.status === 'open' && invoice.status === 'partial',
  values: (deps, locale, _session, invoice) => {
    const remainder = payerStatus(invoice, deps.chains.storedCoin(invoice.coin).decimals).remainder;
    return remainder === undefined ? undefined : { remainder: formatDecimal(locale, remainder), url: withLang(invoice.checkout_url, locale) };
  },
  subject: 'mail_notice_subject',
  text: 'mail_notice_text',
  unsent: 'sessions: a partial-payment notice could not be mailed (no oauth plugin or no SMTP configured)',
});

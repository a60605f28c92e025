import { withDeps, type JobDefinition } from '@gw/kernel';
import { formatTime } from '@gw/plugin-checkout/contract';
import { PAID_STATUSES } from '@gw/plugin-invoices/contract';
import { MAIL_QUEUE, RECEIPT_EMAIL_JOB, type SessionMailData } from '../job-names.js';
import { formatPrice, invoiceCoin, withLang } from '../pages/payer-format.js';
import { payerLocaleOf } from '../pages/payer-locale.js';
import { payerText } from '../pages/payer-texts.js';
import { orderText, receivedAmount } from './session-mail.js';

/**
 * `sessions.receipt-email`: the receipt of a completed session, mailed to the payer (the address
 * the partner gave or the payer entered) in the language they used on its page, with the link of
 * the receipt page. Enqueued by the engine in the transaction that completes the session; sent
 * through the oauth plugin's mailer (one SMTP configuration for the installation). An SMTP server
 * that is down fails the job, and pg-boss retries it (`MAIL_QUEUE`): the mail is delayed, not lost.
 * A session without an address, or whose paying invoice is not paid (any more), gets no mail.
 */
export const receiptEmailJob = withDeps(
  ['db', 'sessionsCheckout', 'invoicesService', 'checkoutBranding', 'chains', 'oauthMailer?', 'logger'],
  (deps): JobDefinition<SessionMailData> => ({
    name: RECEIPT_EMAIL_JOB,
    queue: MAIL_QUEUE,
    // One mail per job: a failed send retries that mail alone, never resends others of its batch.
    work: { batchSize: 1 },
    handler: async (jobs) => {
      for (const { data } of jobs) {
        const session = await deps.sessionsCheckout.ofInvoice(data.invoiceId);
        if (!session || session.id !== data.sessionId || session.status !== 'completed' || !session.customer_email || !session.receipt_url) continue;
        const invoice = (await deps.invoicesService.getMany([data.invoiceId])).get(data.invoiceId);
        if (!invoice || !PAID_STATUSES.includes(invoice.status)) continue;
        const locale = await payerLocaleOf(deps.db, session.id);
        const values = {
          name: (await deps.checkoutBranding.forProject(session.project_id)).displayName,
          order: orderText(locale, deps.chains, session),
          price: formatPrice(locale, deps.chains, session.price_currency, session.price_amount),
          amount: receivedAmount(locale, deps.chains, invoice),
          ...invoiceCoin(deps.chains, invoice.coin, session.mode),
          date: session.completed_at_iso ? formatTime(locale, new Date(session.completed_at_iso)) : '',
          url: withLang(session.receipt_url, locale),
        };
        const sent = await deps.oauthMailer?.sendMessage(
          session.customer_email,
          payerText(locale, 'mail_receipt_subject', values),
          payerText(locale, 'mail_receipt_text', values),
        );
        if (!sent) deps.logger.warn({ checkout_session_id: session.id }, 'sessions: a receipt could not be mailed (no oauth plugin or no SMTP configured)');
      }
    },
  }),
);

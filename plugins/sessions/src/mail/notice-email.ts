import { withDeps, type JobDefinition } from '@gw/kernel';
import { formatDecimal, payerStatus } from '@gw/plugin-checkout/contract';
import { MAIL_QUEUE, NOTICE_EMAIL_JOB, type SessionMailData } from '../job-names.js';
import { formatPrice, invoiceCoin, withLang } from '../pages/payer-format.js';
import { payerLocaleOf } from '../pages/payer-locale.js';
import { payerText } from '../pages/payer-texts.js';

/**
 * `sessions.notice-email`: a session's invoice was paid in part. The payer (if an address is known)
 * is told, in the language they used on the session's page, what is still to send and where to
 * finish: the invoice's checkout page. Enqueued by the engine in the transaction of the partial
 * payment; sent and retried as the receipt is. An invoice no longer short by the time the job runs
 * (paid meanwhile), or a session no longer open, gets no notice.
 */
export const noticeEmailJob = withDeps(
  ['db', 'sessionsCheckout', 'invoicesService', 'checkoutBranding', 'chains', 'oauthMailer?', 'logger'],
  (deps): JobDefinition<SessionMailData> => ({
    name: NOTICE_EMAIL_JOB,
    queue: MAIL_QUEUE,
    work: { batchSize: 1 },
    handler: async (jobs) => {
      for (const { data } of jobs) {
        const session = await deps.sessionsCheckout.ofInvoice(data.invoiceId);
        if (!session || session.id !== data.sessionId || session.status !== 'open' || !session.customer_email) continue;
        const invoice = (await deps.invoicesService.getMany([data.invoiceId])).get(data.invoiceId);
        if (!invoice || invoice.status !== 'partial') continue;
        const remainder = payerStatus(invoice, deps.chains.storedCoin(invoice.coin).decimals).remainder;
        if (remainder === undefined) continue;
        const locale = await payerLocaleOf(deps.db, session.id);
        const values = {
          name: (await deps.checkoutBranding.forProject(session.project_id)).displayName,
          price: formatPrice(locale, deps.chains, session.price_currency, session.price_amount),
          remainder: formatDecimal(locale, remainder),
          ...invoiceCoin(deps.chains, invoice.coin, session.mode),
          url: withLang(invoice.checkout_url, locale),
        };
        const sent = await deps.oauthMailer?.sendMessage(
          session.customer_email,
          payerText(locale, 'mail_notice_subject', values),
          payerText(locale, 'mail_notice_text', values),
        );
        if (!sent)
          deps.logger.warn(
            { checkout_session_id: session.id },
            'sessions: a partial-payment notice could not be mailed (no oauth plugin or no SMTP configured)',
          );
      }
    },
  }),
);

import { withDeps, type Deps, type JobDefinition } from '@gw/kernel';
import type { Locale, MessageValues } from '@gw/plugin-checkout/contract';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { SessionView } from '../contract.js';
import { MAIL_QUEUE, type SessionMailData } from '../job-names.js';
import { formatPrice, invoiceCoin } from '../pages/payer-format.js';
import { payerLocaleOf } from '../pages/payer-locale.js';
import { payerText, type PayerMessageKey } from '../pages/payer-texts.js';

const SESSION_MAIL_DEPS = ['db', 'sessionsCheckout', 'invoicesService', 'checkoutBranding', 'chains', 'oauthMailer?', 'logger'] as const;

/** What a session mail job reads. */
export type SessionMailDeps = Deps<(typeof SESSION_MAIL_DEPS)[number]>;

/** One kind of mail to the payer of a session, about one of its invoices. */
export interface SessionMail {
  /** The job's name. */
  readonly name: string;
  /** Whether the mail is still due when the job runs: the session (with an address) and its invoice are as the mail tells. */
  readonly due: (session: SessionView, invoice: InvoiceView) => boolean;
  /** The mail's values beyond the shop's name, the price and the coin; undefined: no mail after all. */
  readonly values: (deps: SessionMailDeps, locale: Locale, session: SessionView, invoice: InvoiceView) => MessageValues | undefined;
  readonly subject: PayerMessageKey;
  readonly text: PayerMessageKey;
  /** Logged when the mail cannot be sent (no oauth plugin or no SMTP configured). */
  readonly unsent: string;
}

/**
 * The job that sends `mail`: in the language the payer used on the session's page, through the
 * oauth plugin's mailer (one SMTP configuration for the installation). One mail per job: a failed
 * send fails the job, and pg-boss retries that mail alone (`MAIL_QUEUE`). A session that is not the
 * job's any more, has no address, or whose mail is no longer due, gets none.
 */
export function sessionMailJob(mail: SessionMail) {
  return withDeps(SESSION_MAIL_DEPS, (deps): JobDefinition<SessionMailData> => ({
    name: mail.name,
    queue: MAIL_QUEUE,
    work: { batchSize: 1 },
    handler: async (jobs) => {
      for (const { data } of jobs) {
        const session = await deps.sessionsCheckout.ofInvoice(data.invoiceId);
        if (!session || session.id !== data.sessionId || !session.customer_email) continue;
        const invoice = (await deps.invoicesService.getMany([data.invoiceId])).get(data.invoiceId);
        if (!invoice || !mail.due(session, invoice)) continue;
        const locale = await payerLocaleOf(deps.db, session.id);
        const own = mail.values(deps, locale, session, invoice);
        if (!own) continue;
        const values = {
          name: (await deps.checkoutBranding.forProject(session.project_id)).displayName,
          price: formatPrice(locale, deps.chains, session.price_currency, session.price_amount),
          ...invoiceCoin(deps.chains, invoice.coin, session.mode),
          ...own,
        };
        const sent = await deps.oauthMailer?.sendMessage(session.customer_email, payerText(locale, mail.subject, values), payerText(locale, mail.text, values));
        if (!sent) deps.logger.warn({ checkout_session_id: session.id }, mail.unsent);
      }
    },
  }));
}

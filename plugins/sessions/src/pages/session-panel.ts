import { contribute, html, withDeps } from '@gw/kernel';
import { CHECKOUT_PANELS, readingPanel, type CheckoutPanel } from '@gw/plugin-checkout/contract';
import { orderSummary } from './order-summary.js';
import { pathOf } from './payer-format.js';
import { payerText } from './payer-texts.js';

/**
 * The sessions plugin's panel of the hosted checkout page (ADR 0011): the checkout page of a
 * session's invoice shows the order (description, lines, total in the session's currency) and,
 * while the session is open, "Pay with another coin" back to the session's page; once paid, the
 * receipt's link. It has no forms (the session's page has them); the checkout knows nothing of
 * sessions. A failed read shows no panel rather than failing the payer's checkout page.
 */
export const sessionOrderPanels = contribute(
  CHECKOUT_PANELS,
  withDeps(['sessionsCheckout', 'chains', 'logger'], ({ sessionsCheckout, chains, logger }): CheckoutPanel[] => [
    readingPanel({
      id: 'session',
      logger,
      failure: 'sessions: the checkout page could not read the session of an invoice',
      read: ({ invoice }) => sessionsCheckout.ofInvoice(invoice.id),
      render: (session, { invoice, locale }) => {
        if (!session) return html``;
        const t = (key: Parameters<typeof payerText>[1]) => payerText(locale, key);
        // Switching is offered from the session's current invoice only: an older one was switched away from.
        const switchable = session.status === 'open' && session.invoice_id === invoice.id;
        return orderSummary({
          locale,
          chains,
          currency: session.price_currency,
          total: session.price_amount,
          description: session.description,
          lines: session.line_items,
          idPrefix: 'session-',
          className: 'status',
          after: html`${switchable ? html`<p><a class="button" id="session-switch" href="${pathOf(session.url)}?lang=${locale}">${t('switch_coin')}</a></p>` : null}
${session.status === 'completed' && session.receipt_url ? html`<p><a class="button" id="session-receipt" href="${pathOf(session.receipt_url)}?lang=${locale}">${t('view_receipt')}</a></p>` : null}`,
        });
      },
    }),
  ]),
);

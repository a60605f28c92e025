import { contribute, html, withDeps } from '@gw/kernel';
import { CHECKOUT_PANELS, formatDecimal, readingPanel, type CheckoutPanel } from '@gw/plugin-checkout/contract';
import { claimText } from './claim-i18n.js';

/** The most refunds of one invoice the panel lists (an invoice rarely has more than one waiting). */
const SHOWN = 10;

/**
 * The payouts plugin's panel of the hosted checkout page (ADR 0011): when the invoice has a refund
 * waiting for the payer's claim, the page says so and links to the claim page. It has no forms
 * (the claim page has its own); the checkout knows nothing of refunds. A failed read shows no
 * panel rather than failing the payer's checkout page.
 */
export const refundClaimPanels = contribute(
  CHECKOUT_PANELS,
  withDeps(['payoutsItems', 'chains', 'logger'], ({ payoutsItems, chains, logger }): CheckoutPanel[] => [
    readingPanel({
      id: 'refund',
      logger,
      failure: 'payouts: the checkout page could not read the invoice’s refunds',
      read: async ({ invoice }) => {
        const page = await payoutsItems.list({
          projectId: invoice.project_id,
          kind: 'refund',
          invoiceId: invoice.id,
          status: 'awaiting_claim',
          limit: SHOWN,
        });
        return page.items.filter((item) => item.claim_url !== null);
      },
      render: (waiting, { locale }) => {
        if (waiting.length === 0) return html``;
        return html`<section class="status refund-claim" id="refund-claim" aria-labelledby="refund-claim-title">
<h2 id="refund-claim-title">${claimText(locale, 'panel_title')}</h2>
${waiting.map((item) => {
  const symbol = chains.knownCoin(item.coin)?.symbol ?? item.coin.toUpperCase();
  return html`<p>${claimText(locale, 'panel_text', { amount: formatDecimal(locale, item.amount), symbol })} <a class="button" href="${item.claim_url}?lang=${locale}">${claimText(locale, 'panel_link')}</a></p>`;
})}
</section>`;
      },
    }),
  ]),
);

import { html, type ChainRegistry, type SafeHtml } from '@gw/kernel';
import type { Locale } from '@gw/plugin-checkout/contract';
import type { LineItem } from '../contract.js';
import { formatPrice, lineTotal } from './payer-format.js';
import { payerText } from './payer-texts.js';

/** What an order shows: the same on the session's page, the link's page, the receipt and the checkout panel. */
export interface OrderInput {
  readonly locale: Locale;
  readonly chains: ChainRegistry;
  readonly currency: string;
  /** The total; null on a link's page where the payer enters the amount. */
  readonly total: string | null;
  readonly description: string | null;
  readonly lines: readonly LineItem[];
  /** Prefix of the element ids (the checkout page's panel must not reuse the page's own ids). */
  readonly idPrefix?: string;
  /** Classes of the section besides `order` (the checkout panel's `status` card). */
  readonly className?: string;
  /** What follows the order inside its section (the checkout panel's links). */
  readonly after?: SafeHtml | null;
}

/**
 * The order's section: its description, its lines as a table (item, quantity, unit price, line
 * amount) and the total in the price currency. Without lines, the total alone.
 */
export function orderSummary(input: OrderInput): SafeHtml {
  const { locale, chains, currency } = input;
  const id = (name: string) => `${input.idPrefix ?? ''}${name}`;
  const t = (key: Parameters<typeof payerText>[1]) => payerText(locale, key);
  const price = (amount: string) => formatPrice(locale, chains, currency, amount);
  const total = input.total === null ? null : price(input.total);
  return html`<section class="order${input.className ? ` ${input.className}` : ''}" id="${id('order')}" aria-labelledby="${id('order-title')}">
<h2 id="${id('order-title')}">${t('order')}</h2>
${input.description ? html`<p class="description" id="${id('description')}">${input.description}</p>` : null}
${
  input.lines.length > 0
    ? html`<table class="lines" id="${id('lines')}">
<thead><tr><th scope="col">${t('item')}</th><th scope="col" class="num">${t('quantity')}</th><th scope="col" class="num">${t('unit_price')}</th><th scope="col" class="num">${t('line_amount')}</th></tr></thead>
<tbody>
${input.lines.map((line) => html`<tr><th scope="row">${line.name}</th><td class="num">${line.quantity}</td><td class="num">${price(line.unit_amount)}</td><td class="num">${price(lineTotal(line))}</td></tr>`)}
</tbody>
${total === null ? null : html`<tfoot><tr><th scope="row" colspan="3">${t('total')}</th><td class="num" id="${id('total')}">${total}</td></tr></tfoot>`}
</table>`
    : total === null
      ? null
      : html`<dl class="total"><dt>${t('total')}</dt><dd id="${id('total')}">${total}</dd></dl>`
}
${input.after ?? null}
</section>`;
}

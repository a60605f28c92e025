import { fromBaseUnits, type ChainRegistry } from '@gw/kernel';
import { formatDecimal, type Locale } from '@gw/plugin-checkout/contract';
import type { InvoiceView } from '@gw/plugin-invoices/contract';
import type { SessionView } from '../contract.js';
import { formatPrice, lineTotal, receivedUnits } from '../pages/payer-format.js';

/**
 * The order as plain text for a mail: the description, then one line per item
 * (`2 × Tea: 9.00 EUR`), then a blank line; empty for an order with neither.
 */
export function orderText(locale: Locale, chains: ChainRegistry, session: SessionView): string {
  const price = (amount: string) => formatPrice(locale, chains, session.price_currency, amount);
  const lines = [
    ...(session.description ? [session.description] : []),
    ...session.line_items.map((item) => `${item.quantity} × ${item.name}: ${price(lineTotal(item))}`),
  ];
  return lines.length === 0 ? '' : `${lines.join('\n')}\n\n`;
}

/** What arrived at an invoice (its payments that still count), formatted for `locale`. */
export function receivedAmount(locale: Locale, chains: ChainRegistry, invoice: InvoiceView): string {
  return formatDecimal(locale, fromBaseUnits(receivedUnits(invoice), chains.storedCoin(invoice.coin).decimals));
}

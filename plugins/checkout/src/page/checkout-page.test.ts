import test from 'ava';
import type { InvoiceView } from '@gw/plugin-invoices';
import { fiatLine } from './checkout-page.js';

const invoice = (fields: Record<string, unknown>) => ({ amount_usd: null, ...fields }) as unknown as InvoiceView;

test('the fiat line: the price in its currency when the invoice has one, per language with the currency decimals', (t) => {
  const priced = invoice({ amount_usd: 13.53, price_currency: 'EUR', price_amount: '12.5', price_rate: '1.0824' });
  t.is(fiatLine('en', priced)?.text, '<p class="fiat" id="price">Price: 12.50\u00a0EUR</p>');
  t.is(fiatLine('de', priced)?.text, '<p class="fiat" id="price">Preis: 12,50\u00a0EUR</p>');
  t.is(fiatLine('fr', priced)?.text, '<p class="fiat" id="price">Prix\u00a0: 12,50\u00a0EUR</p>');
  t.is(fiatLine('zh', invoice({ amount_usd: 10, price_currency: 'JPY', price_amount: '1500' }))?.text, '<p class="fiat" id="price">价格：1,500\u00a0JPY</p>');
});

test('the fiat line: without a price currency the USD value, without either nothing', (t) => {
  t.is(fiatLine('es', invoice({ amount_usd: 1234.5 }))?.text, '<p class="fiat" id="price">aprox. 1234,50\u00a0USD</p>');
  t.is(fiatLine('en', invoice({ amount_usd: 24.5, price_currency: null, price_amount: null }))?.text, '<p class="fiat" id="price">about 24.50\u00a0USD</p>');
  t.is(fiatLine('en', invoice({})), null);
});

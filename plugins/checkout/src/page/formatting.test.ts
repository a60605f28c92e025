import test from 'ava';
import { currencyDecimals, formatDecimal, formatPrice, formatTime, usdAmountString } from './formatting.js';
import { LOCALES } from './i18n.js';

test('formatDecimal: each language groups and separates as it writes numbers, digit for digit', (t) => {
  const value = '1234567.000000000000000001';
  const expected = {
    en: '1,234,567.000000000000000001',
    de: '1.234.567,000000000000000001',
    es: '1.234.567,000000000000000001',
    fr: '1\u202f234\u202f567,000000000000000001',
    pt: '1.234.567,000000000000000001',
    it: '1.234.567,000000000000000001',
    tr: '1.234.567,000000000000000001',
    zh: '1,234,567.000000000000000001',
  };
  for (const locale of LOCALES) t.is(formatDecimal(locale, value), expected[locale], locale);
  t.is(formatDecimal('es', '1234.5'), '1234,5', 'Spanish groups from five digits');
  t.is(formatDecimal('de', '0.00000001'), '0,00000001');
  t.is(formatDecimal('en', '123456789012345678901234567890.5'), '123,456,789,012,345,678,901,234,567,890.5', 'beyond any JS number');
  t.is(formatDecimal('en', '12'), '12');
  t.is(formatDecimal('de', 'not a number'), 'not a number');
});

test('formatPrice: the currency code after the amount with at least the currency decimals, nothing rounded', (t) => {
  t.is(formatPrice('de', '12.5', 'EUR'), '12,50\u00a0EUR');
  t.is(formatPrice('en', '1500', 'JPY'), '1,500\u00a0JPY');
  t.is(formatPrice('fr', '1234.5', 'CHF'), '1\u202f234,50\u00a0CHF');
  t.is(formatPrice('en', '10.125', 'USD'), '10.125\u00a0USD', 'more digits than the currency uses stay');
  t.is(formatPrice('tr', '99', 'TRY'), '99,00\u00a0TRY');
  t.deepEqual([currencyDecimals('JPY'), currencyDecimals('EUR'), currencyDecimals('BHD'), currencyDecimals('not a code')], [0, 2, 3, 2]);
});

test('usdAmountString: the invoice view’s USD number as the decimal it was stored as', (t) => {
  t.is(usdAmountString(24.5), '24.5');
  t.is(usdAmountString(0.1), '0.1');
  t.is(usdAmountString(1234567.89), '1234567.89');
});

test('formatTime: in UTC, in the language', (t) => {
  const date = new Date('2026-03-05T14:07:00Z');
  t.regex(formatTime('de', date), /5\. März 2026.*14:07.*UTC/);
  t.regex(formatTime('zh', date), /2026年3月5日.*14:07/);
});

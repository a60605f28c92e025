import test from 'ava';
import { fiatOfUnits, type PaidInvoice, planRefund, unitsOf, type VariantRequest, VariantError } from './refund-variants.js';

/** 100 EUR paid with 0.00100000 BTC (1 BTC = 100 000 EUR; 1 EUR = 1.08 USD at pricing: 108 000 USD per BTC). */
const EUR_INVOICE: PaidInvoice = {
  coinCode: 'BTC',
  decimals: 8,
  invoicedUnits: 100_000n,
  receivedUnits: 100_000n,
  rateThen: '108000',
  currency: 'EUR',
  currencyDecimals: 2,
  price: '100.00',
  overpaid: false,
};

const ask = (variant: VariantRequest['variant'], extra: Partial<VariantRequest> = {}): VariantRequest => ({
  variant,
  customAmount: null,
  customCurrency: null,
  subtractPercentage: null,
  ...extra,
});

test('RateThen: the coin received, as an amount of the coin; the subtraction is the refund spread', (t) => {
  t.deepEqual(planRefund(EUR_INVOICE, ask('RateThen')), { amount: '0.00100000', rateRule: 'coin_amount', currency: 'BTC', currencyAmount: null });
  t.deepEqual(planRefund(EUR_INVOICE, ask('RateThen', { subtractPercentage: '2.5' })), {
    amount: '0.00100000',
    rateRule: 'coin_amount',
    spreadPercent: '2.5',
    currency: 'BTC',
    currencyAmount: null,
  });
  t.deepEqual(planRefund(EUR_INVOICE, ask('RateThen', { subtractPercentage: '0' })).spreadPercent, undefined, 'zero is no spread');
});

test('CurrentRate: the USD value at payment of what was received (rounded down to the cent), converted at today\u2019s rate', (t) => {
  t.deepEqual(planRefund({ ...EUR_INVOICE, receivedUnits: 99_999n }, ask('CurrentRate')), {
    amount: '107.99',
    rateRule: 'fiat_now',
    currency: 'BTC',
    currencyAmount: null,
  });
  const noRate = t.throws(() => planRefund({ ...EUR_INVOICE, rateThen: null }, ask('CurrentRate')), { instanceOf: VariantError });
  t.is(noRate.path, 'refundVariant');
});

test('Fiat: the fiat paid, in the invoice currency, less the subtraction; the coin refunded is what came', (t) => {
  t.deepEqual(planRefund(EUR_INVOICE, ask('Fiat')), { amount: '0.00100000', rateRule: 'coin_amount', currency: 'EUR', currencyAmount: '100.00' });
  t.deepEqual(planRefund(EUR_INVOICE, ask('Fiat', { subtractPercentage: '10' })).currencyAmount, '90.00');
  // A short payment is worth its share of the price, rounded down.
  t.is(fiatOfUnits(33_333n, EUR_INVOICE), '33.33');
  t.is(fiatOfUnits(100_000n, { ...EUR_INVOICE, currency: 'JPY', currencyDecimals: 0, price: '15000' }), '15000');
});

test('OverpaidAmount: what came above the price, only for an overpaid invoice', (t) => {
  const overpaid = { ...EUR_INVOICE, receivedUnits: 150_000n, overpaid: true };
  t.is(planRefund(overpaid, ask('OverpaidAmount')).amount, '0.00050000');
  const refused = t.throws(() => planRefund(EUR_INVOICE, ask('OverpaidAmount')), { instanceOf: VariantError });
  t.deepEqual([refused.path, refused.message], ['refundVariant', 'Invoice is not overpaid']);
});

test('Custom: the coin itself, the invoice currency at its price, or USD at the rate snapshot; anything else refused', (t) => {
  t.deepEqual(planRefund(EUR_INVOICE, ask('Custom', { customAmount: '0.0004', customCurrency: 'BTC' })), {
    amount: '0.00040000',
    rateRule: 'coin_amount',
    currency: 'BTC',
    currencyAmount: null,
  });
  t.deepEqual(planRefund(EUR_INVOICE, ask('Custom', { customAmount: '25', customCurrency: 'EUR', subtractPercentage: '1' })), {
    amount: '0.00025000',
    rateRule: 'coin_amount',
    spreadPercent: '1',
    currency: 'EUR',
    currencyAmount: '24.75',
  });
  t.deepEqual(planRefund(EUR_INVOICE, ask('Custom', { customAmount: '54', customCurrency: 'USD' })), {
    amount: '0.00050000',
    rateRule: 'coin_amount',
    currency: 'USD',
    currencyAmount: '54.00',
  });
  const other = t.throws(() => planRefund(EUR_INVOICE, ask('Custom', { customAmount: '5', customCurrency: 'GBP' })), { instanceOf: VariantError });
  t.is(other.path, 'customCurrency');
  t.regex(other.message, /BTC, EUR or USD/);
  const zero = t.throws(() => planRefund(EUR_INVOICE, ask('Custom', { customAmount: '0', customCurrency: 'EUR' })), { instanceOf: VariantError });
  t.deepEqual([zero.path, zero.message], ['customAmount', 'Amount must be greater than 0']);
  t.is(t.throws(() => planRefund(EUR_INVOICE, ask('Custom', { customAmount: '5' })), { instanceOf: VariantError }).path, 'customCurrency');
  const precise = t.throws(() => unitsOf('1.005', 'EUR', EUR_INVOICE, 'amount', 'currency'), { instanceOf: VariantError });
  t.deepEqual([precise.path, precise.message], ['amount', 'An amount in EUR has at most 2 decimal places.']);
  t.is(unitsOf('1.000', 'EUR', EUR_INVOICE, 'amount', 'currency'), 1000n, 'zeros past the places are fine');
  t.is(t.throws(() => unitsOf('0.000000001', 'BTC', EUR_INVOICE, 'amount', 'currency'), { instanceOf: VariantError }).path, 'amount');
  // Worth less than one base unit: a zero refund.
  t.is(
    t.throws(() => planRefund(EUR_INVOICE, ask('Custom', { customAmount: '0.0001', customCurrency: 'USD' })), { instanceOf: VariantError }).path,
    'customAmount',
  );
});

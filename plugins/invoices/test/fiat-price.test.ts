/**
 * A price in a fiat currency (issue 38) over the signed REST API: `price_currency` with
 * `price_amount` instead of `amount_usd` / `amount_crypto`, converted at the rates plugin's fiat
 * quote (fixed rates here) to `amount_usd` rounded to cents, recorded on the invoice; bad input
 * refused with nothing written.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { responseMismatches, signedFetch, type TestKernel } from '@gw/kernel/testing';
import { FIXED_RATES, projectWithPools, startInvoicesKernel, type TestProject } from './helpers.js';

const FIXED_FIAT = { EUR: '1.0815', JPY: '0.0064', GBP: '1.27', INR: '0.012' };

let gw: TestKernel;
let p: TestProject;
test.before(async () => {
  gw = await startInvoicesKernel({ 'plugins.rates.fixedFiat': FIXED_FIAT });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('invoices-fiat', CLI_ACTOR)).id;
  p = await projectWithPools(gw, operatorId, ['btc', 'eth']);
});
test.after.always(async () => {
  await gw?.close();
});

const post = (body: unknown) => signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body });
let seq = 0;
const uid = () => `fiat-${++seq}`;

test('a EUR price: amount_usd is the price at the EUR rate rounded to cents, the coin amount from it; the invoice records price and rate', async (t) => {
  const externalId = uid();
  const created = await post({ external_id: externalId, coin: 'eth', price_currency: 'EUR', price_amount: '19.9' });
  t.is(created.status, 201, JSON.stringify(created.body));
  // 19.90 × 1.0815 = 21.52185 → 21.52 USD; at 3200.5 USD/ETH: 0.00672395 ETH (rounded up to 8 decimals).
  t.like(created.body, { price_currency: 'EUR', price_amount: '19.90', price_rate: '1.0815', amount_usd: 21.52, amount_crypto: '0.00672395' });
  t.is(created.body.rate_snapshot.rate, FIXED_RATES.ETH);
  t.deepEqual(responseMismatches(gw.kernel, 'POST', '/api/v1/invoices', 201, created.body), []);
  const fetched = await signedFetch(gw.url, `/api/v1/invoices/${created.body.id}`, p);
  t.deepEqual(fetched.body, created.body);

  const replay = await post({ external_id: externalId, coin: 'eth', price_currency: 'EUR', price_amount: '19.90' });
  t.is(replay.status, 200, 'the same price written another way is a replay');
  t.is(replay.body.id, created.body.id);
  const conflict = await post({ external_id: externalId, coin: 'eth', price_currency: 'GBP', price_amount: '19.90' });
  t.is(conflict.status, 409);
  t.is(conflict.body.error_code, 'external_id_conflict');
});

test('USD as a price is rate 1 (identity); yen have no decimals; an invoice without a price shows nulls', async (t) => {
  const usd = await post({ external_id: uid(), coin: 'btc', price_currency: 'USD', price_amount: '65' });
  t.like(usd.body, { price_currency: 'USD', price_amount: '65.00', price_rate: '1', amount_usd: 65, amount_crypto: '0.001' });
  const yen = await post({ external_id: uid(), coin: 'btc', price_currency: 'JPY', price_amount: '1500' });
  t.like(yen.body, { price_currency: 'JPY', price_amount: '1500', price_rate: '0.0064', amount_usd: 9.6 });
  const plain = await post({ external_id: uid(), coin: 'btc', amount_usd: 10 });
  t.like(plain.body, { price_currency: null, price_amount: null, price_rate: null });
});

test('bad prices are refused naming the field, and write nothing', async (t) => {
  const { db } = gw.kernel.cradle;
  const count = async () => (await db('invoices_invoices').where({ project_id: p.projectId }).where('external_id', 'like', 'bad-%')).length;
  t.is(await count(), 0);
  const base = { coin: 'eth' };
  const cases: [Record<string, unknown>, number, string, string?][] = [
    [{ ...base, price_currency: 'XXX', price_amount: '10' }, 400, 'validation_error', 'price_currency'],
    [{ ...base, price_currency: 'eur', price_amount: '10' }, 400, 'validation_error', 'price_currency'],
    [{ ...base, price_currency: 'EURO', price_amount: '10' }, 400, 'validation_error', 'price_currency'],
    [{ ...base, price_currency: 'EUR' }, 400, 'validation_error', 'price_amount'],
    [{ ...base, price_amount: '10' }, 400, 'validation_error', 'price_currency'],
    [{ ...base, price_currency: 'EUR', price_amount: '10', amount_usd: 10 }, 400, 'validation_error', 'price_currency'],
    [{ ...base, price_currency: 'EUR', price_amount: '10', amount_crypto: '0.1' }, 400, 'validation_error', 'price_currency'],
    [{ ...base, price_currency: 'EUR', price_amount: '10.005' }, 400, 'validation_error', 'price_amount'],
    [{ ...base, price_currency: 'JPY', price_amount: '10.5' }, 400, 'validation_error', 'price_amount'],
    [{ ...base, price_currency: 'EUR', price_amount: '1e3' }, 400, 'validation_error', 'price_amount'],
    [{ ...base, price_currency: 'EUR', price_amount: 10 }, 400, 'validation_error', 'price_amount'],
    [{ ...base, price_currency: 'EUR', price_amount: '0' }, 400, 'validation_error', 'price_amount'],
    [{ ...base, price_currency: 'INR', price_amount: '0.01' }, 422, 'amount_out_of_range'],
    [{ ...base, price_currency: 'EUR', price_amount: '999999999' }, 422, 'amount_out_of_range'],
  ];
  for (const [body, status, code, field] of cases) {
    const res = await post({ external_id: `bad-${uid()}`, ...body });
    t.is(res.status, status, JSON.stringify(body));
    t.is(res.body.error_code, code, JSON.stringify(body));
    if (field) t.is(res.body.details.field, field, JSON.stringify(body));
  }
  const unknown = await post({ external_id: `bad-${uid()}`, ...base, price_currency: 'XXX', price_amount: '10' });
  t.true(unknown.body.details.currencies.includes('EUR'), 'an unknown currency is answered with the currencies priced');
  t.is(await count(), 0);
});

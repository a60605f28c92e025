/**
 * The sandbox mirror of the invoice API takes a fiat price as production does (issue 38): the same
 * body, conversion and refusals, at the deployment's fixed rates.
 */
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, type SandboxClient } from './helpers.js';

let gw: TestKernel;
let c: SandboxClient;
test.before(async () => {
  gw = await startSandboxKernel({ 'plugins.rates.fixedFiat': { EUR: '1.0815' } });
  c = await sandboxClient(gw);
});
test.after.always(async () => {
  await gw?.close();
});

test('a EUR-priced sandbox invoice records price and rate; an unknown currency is 400 naming the field', async (t) => {
  const created = await c.call('POST', '/invoices', { external_id: 'eur-1', coin: 'usdt_trc20', price_currency: 'EUR', price_amount: '100' });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, { price_currency: 'EUR', price_amount: '100.00', price_rate: '1.0815', amount_usd: 108.15, amount_crypto: '108.15' });
  await c.call('POST', `/invoices/${created.body.id}/simulate-detect`);
  const paid = await c.call('POST', `/invoices/${created.body.id}/simulate-paid`);
  t.is(paid.body.status, 'paid');
  const refused = await c.call('POST', '/invoices', { external_id: 'eur-2', coin: 'usdt_trc20', price_currency: 'ZZZ', price_amount: '100' });
  t.is(refused.status, 400);
  t.like(refused.body, { error_code: 'validation_error', details: { field: 'price_currency' } });
  const both = await c.call('POST', '/invoices', { external_id: 'eur-3', coin: 'usdt_trc20', price_currency: 'EUR', price_amount: '1', amount_usd: 1 });
  t.is(both.body.error_code, 'validation_error');
  t.is((await c.call('GET', '/invoices')).body.items.length, 1);
});

import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSessionsKernel } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startSessionsKernel();
});
test.after.always(async () => {
  await gw?.close();
});

test('a session priced in a coin: created, read, listed, replayed under its Idempotency-Key', async (t) => {
  const c = await sandboxClient(gw);
  const created = await c.call('POST', '/checkout-sessions', { price_currency: 'btc', price_amount: '0.0010', description: 'A book' });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, { object: 'checkout_session', status: 'open', price_currency: 'btc', price_amount: '0.001', allowed_coins: ['btc'], coin: null, invoices: [] });
  t.regex(created.body.url, /\/pay\/[0-9a-f]{32}$/);
  const got = await c.call('GET', `/checkout-sessions/${created.body.id}`);
  t.deepEqual(got.body, created.body);
  const all = await c.call('GET', '/checkout-sessions');
  t.deepEqual(all.body.items.map((s: any) => s.id), [created.body.id]);
});

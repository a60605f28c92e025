import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { PAYER_ACTOR } from '../src/index.js';
import { sandboxClient, startSessionsKernel, withKey, type SandboxClient } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startSessionsKernel();
});
test.after.always(async () => {
  await gw?.close();
});

const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
/** A payer opens the link's page (what its Pay button does). */
const open = (link: { url: string }, input: { amount?: string; email?: string } = {}) =>
  gw.kernel.cradle.sessionsLinks.open(tokenOf(link.url), input, PAYER_ACTOR);
const pick = (c: SandboxClient, sessionId: string, coin: string) => c.call('POST', `/checkout-sessions/${sessionId}/simulate-pick`, { coin });

async function createLink(c: SandboxClient, body: Record<string, unknown>) {
  const created = await c.call('POST', '/payment-links', body);
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}

test('a payment link used by three payers: three sessions, three invoices in three coins, three uses; then it is used up', async (t) => {
  const c = await sandboxClient(gw);
  const link = await createLink(c, {
    price_currency: 'USD',
    price_amount: '20',
    allowed_coins: ['btc', 'eth', 'usdt_trc20'],
    description: 'Workshop ticket',
    line_items: [{ name: 'Ticket', quantity: 1, unit_amount: '20' }],
    max_uses: 3,
    metadata: { event: 'ws-1' },
  });
  t.like(link, { object: 'payment_link', active: true, price_amount: '20.00', uses: 0, max_uses: 3, ask_email: true });
  t.regex(link.url, /\/l\/[0-9a-f]{32}$/);
  t.is(link.qr_url, `${link.url}/qr.svg`);

  const invoices: string[] = [];
  for (const [n, coin] of ['btc', 'eth', 'usdt_trc20'].entries()) {
    const opened = await open(link, { email: `payer${n}@example.com` });
    t.like(opened.session, {
      payment_link_id: link.id,
      price_currency: 'USD',
      price_amount: '20.00',
      description: 'Workshop ticket',
      customer_email: `payer${n}@example.com`,
    });
    t.is(opened.session.metadata, null, "the payer's view never carries the partner's metadata");
    const picked = await pick(c, opened.session.id, coin);
    t.is(picked.status, 200, JSON.stringify(picked.body));
    invoices.push(picked.body.invoice_id);
    t.is((await c.call('POST', `/invoices/${picked.body.invoice_id}/simulate-detect`, {})).status, 200);
    const paid = await c.call('POST', `/invoices/${picked.body.invoice_id}/simulate-paid`, {});
    t.is(paid.status, 200, JSON.stringify(paid.body));
  }
  const sessions = await c.call('GET', `/checkout-sessions?payment_link_id=${link.id}`);
  t.is(sessions.body.items.length, 3);
  t.true(sessions.body.items.every((s: any) => s.status === 'completed' && s.metadata?.event === 'ws-1'));
  t.deepEqual(sessions.body.items.map((s: any) => s.invoice_id).sort(), [...invoices].sort());
  t.deepEqual(sessions.body.items.map((s: any) => s.coin).sort(), ['btc', 'eth', 'usdt_trc20']);
  t.is((await c.call('GET', `/payment-links/${link.id}`)).body.uses, 3);

  const usedUp = await t.throwsAsync(open(link));
  t.is((usedUp as any).code, 'payment_link_used_up');
  t.is((usedUp as any).status, 409);
});

test('an amount the payer enters: within the limits it opens a session at that price; outside them 422 amount_out_of_range; none is 400', async (t) => {
  const c = await sandboxClient(gw);
  const link = await createLink(c, { price_currency: 'EUR', min_amount: '5', max_amount: '500.00', ask_email: false });
  t.like(link, { price_amount: null, min_amount: '5.00', max_amount: '500.00', ask_email: false });
  const opened = await open(link, { amount: '12.50' });
  t.is(opened.session.price_amount, '12.50');
  t.is(opened.session.price_currency, 'EUR');
  for (const amount of ['4.99', '500.01']) {
    const refused = await t.throwsAsync(open(link, { amount }));
    t.is((refused as any).code, 'amount_out_of_range');
    t.is((refused as any).status, 422);
  }
  t.is(((await t.throwsAsync(open(link))) as any).code, 'validation_error');
  t.is(((await t.throwsAsync(open(link, { amount: '12.345' }))) as any).code, 'validation_error');
  t.is(((await t.throwsAsync(open(link, { amount: '10', email: 'not-an-address' }))) as any).code, 'validation_error');
});

test('a deactivated link opens no session (409 payment_link_inactive); its open sessions go on; list by active', async (t) => {
  const c = await sandboxClient(gw);
  const link = await createLink(c, { price_currency: 'btc', price_amount: '0.001' });
  t.deepEqual(link.allowed_coins, ['btc']);
  const opened = await open(link);
  const deactivated = await c.call('POST', `/payment-links/${link.id}/deactivate`);
  t.is(deactivated.status, 200);
  t.like(deactivated.body, { active: false });
  t.truthy(deactivated.body.deactivated_at_iso);
  const refused = await t.throwsAsync(open(link));
  t.is((refused as any).code, 'payment_link_inactive');
  const picked = await pick(c, opened.session.id, 'btc');
  t.is(picked.status, 200, 'a session opened before goes on');
  t.is((await c.call('GET', '/payment-links?active=false')).body.items[0].id, link.id);
  t.deepEqual((await c.call('GET', '/payment-links?active=true')).body.items, []);
  // Deactivating again answers the link as it is.
  t.is((await c.call('POST', `/payment-links/${link.id}/deactivate`)).body.deactivated_at_iso, deactivated.body.deactivated_at_iso);
});

test('bad links: both a price and limits, neither, limits the wrong way round, lines with an open amount, an unknown currency; Idempotency-Key replays', async (t) => {
  const c = await sandboxClient(gw);
  const refused = async (body: Record<string, unknown>, field: string, code = 'validation_error') => {
    const res = await c.call('POST', '/payment-links', body);
    t.is(res.body.error_code, code, JSON.stringify(res.body));
    t.is(res.body.details?.field, field);
  };
  await refused({ price_currency: 'EUR', price_amount: '5', min_amount: '1', max_amount: '9' }, 'min_amount');
  await refused({ price_currency: 'EUR' }, 'price_amount');
  await refused({ price_currency: 'EUR', min_amount: '9', max_amount: '1' }, 'min_amount');
  await refused({ price_currency: 'EUR', min_amount: '1', max_amount: '9', line_items: [{ name: 'x', quantity: 1, unit_amount: '1' }] }, 'line_items');
  await refused({ price_currency: 'ZZZ', price_amount: '1' }, 'price_currency');
  await refused({ price_currency: 'EUR', price_amount: '1', allowed_coins: ['btc', 'nope'] }, 'allowed_coins', 'coin_not_allowed');
  t.deepEqual((await c.call('GET', '/payment-links')).body.items, []);

  const body = { price_currency: 'GBP', price_amount: '3' };
  const first = await withKey(gw, c, '/payment-links', body, 'link-1');
  t.is(first.status, 201);
  const replay = await withKey(gw, c, '/payment-links', body, 'link-1');
  t.is(replay.status, 200);
  t.is(replay.body.id, first.body.id);
  t.is((await withKey(gw, c, '/payment-links', { ...body, price_amount: '4' }, 'link-1')).body.error_code, 'idempotency_key_reused');
  t.is((await c.call('GET', `/payment-links/${first.body.id}`)).body.url, first.body.url);
  t.is((await (await sandboxClient(gw)).call('GET', `/payment-links/${first.body.id}`)).body.error_code, 'payment_link_not_found');
});

test('max_uses counts open sessions: with one use, a second payer is refused while the first session is open, and served once it expired; concurrent opens give one session', async (t) => {
  const c = await sandboxClient(gw);
  const link = await createLink(c, { price_currency: 'USD', price_amount: '5', allowed_coins: ['btc'], max_uses: 1 });
  const first = await open(link);
  const refused = await t.throwsAsync(open(link));
  t.like(refused, { code: 'payment_link_used_up', status: 409 });
  t.like((refused as any).details, { max_uses: 1, uses: 0, open_sessions: 1 });
  t.is((await c.call('POST', `/checkout-sessions/${first.session.id}/expire`)).body.status, 'expired');
  const second = await open(link);
  t.not(second.session.id, first.session.id);
  await c.call('POST', `/checkout-sessions/${second.session.id}/expire`);

  const raced = await Promise.allSettled([open(link), open(link), open(link)]);
  t.is(raced.filter((r) => r.status === 'fulfilled').length, 1);
  t.true(raced.every((r) => r.status === 'fulfilled' || (r.reason as any).code === 'payment_link_used_up'));
  const sessions = await c.call('GET', `/checkout-sessions?payment_link_id=${link.id}&status=open`);
  t.is(sessions.body.items.length, 1);
});

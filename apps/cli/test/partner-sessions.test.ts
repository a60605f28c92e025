/**
 * The partner commands of checkout sessions and payment links (`gateway checkout-sessions
 * create|list|get|expire`, `gateway payment-links create|list|get|deactivate`) against a real
 * gateway with workers and every plugin of this build (fixed rates, EUR included): the commands
 * answer what the API does; refusals exit 1 with the error code, usage mistakes 2.
 */
import test from 'ava';
import { partnerGateway } from './partner-gateway.js';

const g = partnerGateway(test, 'gw-partner-sessions-cli-', { 'plugins.rates.fixedFiat': { EUR: '1.08' } });

/** A checkout session created from flags, with an idempotency key: run twice, the second answers the first. */
const CREATE_WITH_FLAGS = [
  'checkout-sessions',
  'create',
  '--currency',
  'EUR',
  '--amount',
  '42.50',
  '--coins',
  'usdt_trc20,eth',
  '--description',
  'Order 1042',
  '--external-id',
  'order-1042',
  '--email',
  'payer@example.com',
  '--expires-in',
  '900',
  '--idempotency-key',
  'order-1042',
  '--json',
];

test.serial('checkout-sessions create (flags and --data), list, get, expire; errors exit 1 with the error code', async (t) => {
  const created = await g.partner(...CREATE_WITH_FLAGS);
  t.is(created.code, 0, created.stdout + created.stderr);
  const session = created.json;
  t.like(session, {
    object: 'checkout_session',
    status: 'open',
    price_currency: 'EUR',
    price_amount: '42.50',
    description: 'Order 1042',
    external_id: 'order-1042',
    customer_email: 'payer@example.com',
  });
  t.deepEqual(session.allowed_coins, ['usdt_trc20', 'eth']);
  const lifetime = Date.parse(session.expires_at_iso) - Date.parse(session.created_at_iso);
  t.true(lifetime > 890_000 && lifetime <= 900_000, `expires_in 900 (${lifetime} ms)`);
  const replay = await g.partner(...CREATE_WITH_FLAGS);
  t.is(replay.json.id, session.id, 'the same key answers the first session');

  const data = JSON.stringify({
    price_currency: 'eth',
    price_amount: '0.02',
    line_items: [{ name: 'Beans', quantity: 2, unit_amount: '0.01' }],
    metadata: { cart: 'c-9' },
  });
  const fromData = await g.partner('checkout-sessions', 'create', '--data', data, '--external-id', 'order-1043', '--json');
  t.is(fromData.code, 0, fromData.stdout + fromData.stderr);
  t.like(fromData.json, { price_currency: 'eth', price_amount: '0.02', external_id: 'order-1043', metadata: { cart: 'c-9' } });
  t.deepEqual(fromData.json.line_items, [{ name: 'Beans', quantity: 2, unit_amount: '0.01' }]);
  t.deepEqual(fromData.json.allowed_coins, ['eth']);

  const listed = await g.partner('checkout-sessions', 'list', '--json');
  t.is(listed.code, 0, listed.stderr);
  t.deepEqual(
    listed.json.items.map((s: { id: string }) => s.id),
    [fromData.json.id, session.id],
  );
  const byExternal = await g.partner('checkout-sessions', 'list', '--external-id', 'order-1042', '--json');
  t.deepEqual(
    byExternal.json.items.map((s: { id: string }) => s.id),
    [session.id],
  );
  const paged = await g.partner('checkout-sessions', 'list', '--limit', '1', '--json');
  t.is(paged.json.items.length, 1);
  const next = await g.partner('checkout-sessions', 'list', '--limit', '1', '--cursor', paged.json.next_cursor, '--json');
  t.deepEqual(
    next.json.items.map((s: { id: string }) => s.id),
    [session.id],
  );

  // The payer picks ETH: the session shows the coin and its invoice.
  const picked = await g.account.call('POST', `/checkout-sessions/${fromData.json.id}/simulate-pick`, { coin: 'eth' });
  t.is(picked.status, 200, JSON.stringify(picked.body));
  const got = await g.partner('checkout-sessions', 'get', fromData.json.id, '--json');
  t.is(got.code, 0, got.stderr);
  t.is(got.json.coin, 'eth');
  t.deepEqual(
    got.json.invoices.map((i: { invoice_id: string; amount_crypto: string }) => [i.invoice_id, i.amount_crypto]),
    [[picked.body.invoice_id, '0.02']],
  );
  const expiredPicked = await g.partner('checkout-sessions', 'expire', fromData.json.id, '--json');
  t.is(expiredPicked.json.status, 'expired');
  t.is((await g.account.call('GET', `/invoices/${picked.body.invoice_id}`)).body.status, 'cancelled', 'its unpaid invoice is cancelled');

  // The payer picks USDT on TRON for the EUR session: an invoice of the price at the fixed rate.
  const eur = await g.account.call('POST', `/checkout-sessions/${session.id}/simulate-pick`, { coin: 'usdt_trc20' });
  t.is(eur.status, 200, JSON.stringify(eur.body));
  const eurInvoice = (await g.account.call('GET', `/invoices/${eur.body.invoice_id}`)).body;
  t.like(eurInvoice, { coin: 'usdt_trc20', price_currency: 'EUR', price_amount: '42.50', price_rate: '1.08' });
  t.is(Number(eurInvoice.amount_usd), 45.9);

  const expired = await g.partner('checkout-sessions', 'expire', session.id, '--json');
  t.is(expired.code, 0, expired.stdout + expired.stderr);
  t.is(expired.json.status, 'expired');
  const byStatus = await g.partner('checkout-sessions', 'list', '--status', 'expired', '--json');
  t.deepEqual(
    byStatus.json.items.map((s: { id: string }) => s.id),
    [fromData.json.id, session.id],
  );
  // Another session ended elsewhere (the same signed request again within a second would answer the first answer).
  const ended = (await g.account.call('POST', '/checkout-sessions', { price_currency: 'eth', price_amount: '0.01' })).body;
  await g.gw.kernel.cradle.sessionsCheckout.expire(g.account.projectId, ended.id, { actor: 'test', channel: 'cli' });
  const closed = await g.partner('checkout-sessions', 'expire', ended.id, '--json');
  t.is(closed.code, 1, closed.stdout);
  t.is(closed.json.error_code, 'checkout_session_closed');

  const unknown = await g.partner('checkout-sessions', 'create', '--currency', 'XYZ', '--amount', '5', '--json');
  t.is(unknown.code, 1);
  t.is(unknown.json.error_code, 'validation_error');
  const notAllowed = await g.partner('checkout-sessions', 'create', '--currency', 'EUR', '--amount', '5', '--coins', 'btc,nocoin', '--json');
  t.is(notAllowed.code, 1);
  t.is(notAllowed.json.error_code, 'coin_not_allowed');
  const missing = await g.partner('checkout-sessions', 'get', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json');
  t.is(missing.json.error_code, 'checkout_session_not_found');

  const noPrice = await g.partner('checkout-sessions', 'create', '--currency', 'EUR');
  t.is(noPrice.code, 2);
  t.regex(noPrice.stderr, /--currency and --amount/);
  const badStatus = await g.partner('checkout-sessions', 'list', '--status', 'done');
  t.is(badStatus.code, 2);
  t.regex(badStatus.stderr, /--status must be one of open, completed, expired/);
  t.is((await g.partner('checkout-sessions', 'get')).code, 2);
  t.is((await g.partner('checkout-sessions', 'pay', session.id)).code, 2);
  const help = await g.partner('checkout-sessions', '--help');
  t.is(help.code, 0);
  t.regex(help.stdout, /checkout-sessions create --currency C --amount X/);
});

test.serial('payment-links create (fixed and ranged), list by state, get, deactivate; refusals', async (t) => {
  const fixed = await g.partner('payment-links', 'create', '--currency', 'EUR', '--amount', '25', '--description', 'Beans', '--max-uses', '3', '--json');
  t.is(fixed.code, 0, fixed.stdout + fixed.stderr);
  t.like(fixed.json, { object: 'payment_link', active: true, price_currency: 'EUR', price_amount: '25.00', max_uses: 3, uses: 0, ask_email: true });
  t.is(fixed.json.qr_url, `${fixed.json.url}/qr.svg`);
  const ranged = await g.partner('payment-links', 'create', '--currency', 'USD', '--min', '5', '--max', '500', '--coins', 'btc', '--ask-email', 'no', '--json');
  t.is(ranged.code, 0, ranged.stdout + ranged.stderr);
  t.like(ranged.json, { price_amount: null, min_amount: '5.00', max_amount: '500.00', ask_email: false });
  t.deepEqual(ranged.json.allowed_coins, ['btc']);

  const listed = await g.partner('payment-links', 'list', '--json');
  t.deepEqual(
    listed.json.items.map((l: { id: string }) => l.id),
    [ranged.json.id, fixed.json.id],
  );
  t.is((await g.partner('payment-links', 'get', fixed.json.id, '--json')).json.description, 'Beans');
  const deactivated = await g.partner('payment-links', 'deactivate', fixed.json.id, '--json');
  t.is(deactivated.code, 0, deactivated.stderr);
  t.false(deactivated.json.active);
  t.deepEqual(
    (await g.partner('payment-links', 'list', '--active', 'yes', '--json')).json.items.map((l: { id: string }) => l.id),
    [ranged.json.id],
  );
  t.deepEqual(
    (await g.partner('payment-links', 'list', '--active', 'no', '--json')).json.items.map((l: { id: string }) => l.id),
    [fixed.json.id],
  );

  const both = await g.partner('payment-links', 'create', '--currency', 'USD', '--amount', '5', '--min', '1', '--max', '9', '--json');
  t.is(both.code, 1);
  t.is(both.json.error_code, 'validation_error');
  const missing = await g.partner('payment-links', 'deactivate', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json');
  t.is(missing.code, 1);
  t.is(missing.json.error_code, 'payment_link_not_found');
  t.is((await g.partner('payment-links', 'list', '--active', 'maybe')).code, 2);
  t.is((await g.partner('payment-links', 'create', '--currency', 'USD', '--ask-email', 'sometimes')).code, 2);
  t.is((await g.partner('payment-links', 'create', '--amount', '5')).code, 2);
});

import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { eventTypes } from '@gw/testing';
import { mailJobs, sandboxClient, startSessionsKernel, withKey, type SandboxClient } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startSessionsKernel();
});
test.after.always(async () => {
  await gw?.close();
});

/** A USD session of `amount` over BTC, ETH and USDT on TRON (the payer picks among them). */
async function usdSession(c: SandboxClient, body: Record<string, unknown> = {}) {
  const created = await c.call('POST', '/checkout-sessions', {
    price_currency: 'USD',
    price_amount: '130.00',
    allowed_coins: ['btc', 'eth', 'usdt_trc20'],
    ...body,
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}

const pick = (c: SandboxClient, sessionId: string, coin: string) => c.call('POST', `/checkout-sessions/${sessionId}/simulate-pick`, { coin });
const simulate = (c: SandboxClient, invoiceId: string, what: string, body: unknown = {}) => c.call('POST', `/invoices/${invoiceId}/simulate-${what}`, body);
/** A sandbox payment of a pending invoice: seen in the mempool, then confirmed. */
async function pay(c: SandboxClient, invoiceId: string) {
  const detected = await simulate(c, invoiceId, 'detect');
  if (detected.status !== 200) throw new Error(JSON.stringify(detected.body));
  return simulate(c, invoiceId, 'paid');
}

test('a session priced in a coin: created, read, listed, replayed under its Idempotency-Key, and another body under the key refused', async (t) => {
  const c = await sandboxClient(gw);
  const body = { price_currency: 'btc', price_amount: '0.0010', description: 'A book', external_id: 'order-7', metadata: { cart: 7 } };
  const created = await withKey(gw, c, '/checkout-sessions', body, 'k-1');
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, {
    object: 'checkout_session',
    status: 'open',
    mode: 'sandbox',
    price_currency: 'btc',
    price_amount: '0.001',
    allowed_coins: ['btc'],
    coin: null,
    invoice_id: null,
    invoices: [],
    external_id: 'order-7',
    metadata: { cart: 7 },
    receipt_url: null,
  });
  t.regex(created.body.url, /\/pay\/[0-9a-f]{32}$/);
  t.is(Date.parse(created.body.expires_at_iso) - Date.parse(created.body.created_at_iso), 3600_000, 'the default lifetime');
  const replay = await withKey(gw, c, '/checkout-sessions', body, 'k-1');
  t.is(replay.status, 200);
  t.deepEqual(replay.body, created.body);
  const reused = await withKey(gw, c, '/checkout-sessions', { ...body, price_amount: '0.002' }, 'k-1');
  t.is(reused.status, 422);
  t.is(reused.body.error_code, 'idempotency_key_reused');
  t.deepEqual((await c.call('GET', `/checkout-sessions/${created.body.id}`)).body, created.body);
  const other = await c.call('POST', '/checkout-sessions', { price_currency: 'eth', price_amount: '0.5', expires_in: 600 });
  t.is(other.status, 201);
  const page = await c.call('GET', '/checkout-sessions?limit=1');
  t.deepEqual(
    page.body.items.map((s: any) => s.id),
    [other.body.id],
  );
  const next = await c.call('GET', `/checkout-sessions?limit=1&cursor=${page.body.next_cursor}`);
  t.deepEqual(
    next.body.items.map((s: any) => s.id),
    [created.body.id],
  );
  t.deepEqual(
    (await c.call('GET', '/checkout-sessions?external_id=order-7')).body.items.map((s: any) => s.id),
    [created.body.id],
  );
  t.is((await c.call('GET', '/checkout-sessions?status=completed')).body.items.length, 0);
  // Another project's session is not found.
  const stranger = await sandboxClient(gw);
  t.is((await stranger.call('GET', `/checkout-sessions/${created.body.id}`)).body.error_code, 'checkout_session_not_found');
});

test('bad input: an unknown currency, too many decimals, lines that do not add up, a coin not allowed, a coin price paid in another coin, a short lifetime, an http return_url', async (t) => {
  const c = await sandboxClient(gw);
  const refused = async (body: Record<string, unknown>, status: number, code: string, field?: string) => {
    const res = await c.call('POST', '/checkout-sessions', { price_currency: 'EUR', price_amount: '10', ...body });
    t.is(res.status, status, JSON.stringify(res.body));
    t.is(res.body.error_code, code);
    if (field) t.is(res.body.details?.field, field, JSON.stringify(res.body));
    return res.body;
  };
  const unknown = await refused({ price_currency: 'XYZ' }, 400, 'validation_error', 'price_currency');
  t.true(unknown.details.currencies.includes('EUR'));
  t.regex(unknown.message, /XYZ/);
  await refused({ price_currency: 'JPY', price_amount: '1500.5' }, 400, 'validation_error', 'price_amount');
  await refused({ price_amount: '0' }, 400, 'validation_error', 'price_amount');
  const lines = await refused(
    {
      price_amount: '10.00',
      line_items: [
        { name: 'Tea', quantity: 2, unit_amount: '3.50' },
        { name: 'Cake', quantity: 1, unit_amount: '2.50' },
      ],
    },
    400,
    'validation_error',
    'line_items',
  );
  t.regex(lines.message, /9\.50 EUR, not the price 10\.00 EUR/);
  const coin = await refused({ allowed_coins: ['btc', 'doge'] }, 422, 'coin_not_allowed', 'allowed_coins');
  t.is(coin.details.coin, 'doge');
  await refused({ price_currency: 'btc', price_amount: '0.1', allowed_coins: ['eth'] }, 400, 'validation_error', 'allowed_coins');
  await refused({ expires_in: 60 }, 400, 'validation_error');
  await refused({ return_url: 'http://shop.example/done' }, 400, 'validation_error', 'return_url');
  await refused({ metadata: { blob: 'x'.repeat(17_000) } }, 400, 'validation_error', 'metadata');
  t.deepEqual((await c.call('GET', '/checkout-sessions')).body.items, [], 'nothing was written');

  // Lines that add up are kept in canonical form.
  const ok = await c.call('POST', '/checkout-sessions', {
    price_currency: 'EUR',
    price_amount: '9.5',
    line_items: [
      { name: ' Tea ', quantity: 2, unit_amount: '3.50' },
      { name: 'Cake', quantity: 1, unit_amount: '2.5' },
    ],
  });
  t.is(ok.status, 201, JSON.stringify(ok.body));
  t.deepEqual(ok.body.line_items, [
    { name: 'Tea', quantity: 2, unit_amount: '3.50' },
    { name: 'Cake', quantity: 1, unit_amount: '2.50' },
  ]);
  t.is(ok.body.price_amount, '9.50');
});

test('the payer picks a coin: its invoice is created then; the same coin answers it again; switching cancels it; a coin not offered is refused', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  t.deepEqual((await c.call('GET', '/invoices')).body.items, [], 'no invoice before a pick');
  const first = await pick(c, session.id, 'btc');
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(first.body, { coin: 'btc', status: 'open' });
  const btc = await c.call('GET', `/invoices/${first.body.invoice_id}`);
  t.like(btc.body, { coin: 'btc', status: 'pending', external_id: `cs_${session.id}_1`, amount_usd: 130, metadata: { checkout_session_id: session.id } });
  t.is(btc.body.amount_crypto, '0.002', '130 USD at 65000 USD/BTC');

  const again = await pick(c, session.id, 'btc');
  t.is(again.body.invoice_id, first.body.invoice_id, 'the same coin answers the same invoice');

  const switched = await pick(c, session.id, 'eth');
  t.is(switched.status, 200, JSON.stringify(switched.body));
  t.not(switched.body.invoice_id, first.body.invoice_id);
  t.is((await c.call('GET', `/invoices/${first.body.invoice_id}`)).body.status, 'cancelled');
  t.like((await c.call('GET', `/invoices/${switched.body.invoice_id}`)).body, { coin: 'eth', status: 'pending', external_id: `cs_${session.id}_2` });
  t.deepEqual(
    switched.body.invoices.map((i: any) => [i.coin, i.status, i.late]),
    [
      ['btc', 'cancelled', false],
      ['eth', 'pending', false],
    ],
  );

  const notOffered = await pick(c, session.id, 'ltc');
  t.is(notOffered.status, 422);
  t.is(notOffered.body.error_code, 'coin_not_allowed');
  t.deepEqual(notOffered.body.details.allowed_coins, ['btc', 'eth', 'usdt_trc20']);
  // The audit log has the pick.
  const audits = await gw.kernel.cradle.db('kernel_audit_log').where({ action: 'checkout_session.pick', project_id: c.projectId }).orderBy('id');
  t.is(audits.length, 2);
});

test('a payment seen on the current invoice locks the coin: switching and ending are 409 checkout_session_payment_in_progress', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  const picked = await pick(c, session.id, 'eth');
  t.is((await simulate(c, picked.body.invoice_id, 'detect')).status, 200);
  const switched = await pick(c, session.id, 'btc');
  t.is(switched.status, 409);
  t.is(switched.body.error_code, 'checkout_session_payment_in_progress');
  const ended = await c.call('POST', `/checkout-sessions/${session.id}/expire`);
  t.is(ended.status, 409);
  t.is(ended.body.error_code, 'checkout_session_payment_in_progress');
  t.is((await c.call('GET', `/checkout-sessions/${session.id}`)).body.invoices.length, 1, 'no second invoice was made');
});

test('a simulated payment completes the session: receipt link, checkout_session.completed after the invoice event, the receipt mail job; a closed session refuses picks', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c, { customer_email: 'payer@example.com' });
  await pick(c, session.id, 'btc');
  const eth = await pick(c, session.id, 'eth');
  const paid = await pay(c, eth.body.invoice_id);
  t.is(paid.status, 200, JSON.stringify(paid.body));
  const done = (await c.call('GET', `/checkout-sessions/${session.id}`)).body;
  t.like(done, { status: 'completed', coin: 'eth', invoice_id: eth.body.invoice_id });
  t.regex(done.receipt_url, /\/receipts\/[0-9a-f]{32}$/);
  t.truthy(done.completed_at_iso);
  t.deepEqual(
    done.invoices.map((i: any) => [i.coin, i.status, i.late]),
    [
      ['btc', 'cancelled', false],
      ['eth', 'paid', false],
    ],
  );
  t.deepEqual(await eventTypes(gw, c.projectId, 'checkout_session.'), ['checkout_session.completed']);
  const [event] = await gw.kernel.cradle.db('webhooks_events').where({ project_id: c.projectId, event_type: 'checkout_session.completed' });
  t.is(event.invoice_id, eth.body.invoice_id);
  const envelope = JSON.parse(event.body);
  t.like(envelope.data, { checkout_session_id: session.id, invoice_id: eth.body.invoice_id, status: 'completed', previous_status: 'open' });
  t.is(envelope.data.checkout_session.receipt_url, done.receipt_url);
  t.deepEqual(await mailJobs(gw, 'sessions.receipt-email', session.id), [{ sessionId: session.id, invoiceId: eth.body.invoice_id }]);
  // The session's invoice is listed with the project's invoices and still answers for itself.
  t.is((await c.call('GET', `/invoices/${eth.body.invoice_id}`)).body.status, 'paid');

  const late = await pick(c, session.id, 'btc');
  t.is(late.status, 409);
  t.is(late.body.error_code, 'checkout_session_closed');
  t.is((await c.call('POST', `/checkout-sessions/${session.id}/expire`)).body.error_code, 'checkout_session_closed');
  t.is((await c.call('GET', '/checkout-sessions?status=completed')).body.items[0].id, session.id);
});

test('a partial payment enqueues the notice mail for a payer with an e-mail address; none without one', async (t) => {
  const c = await sandboxClient(gw);
  const withEmail = await usdSession(c, { customer_email: 'payer@example.com' });
  const withoutEmail = await usdSession(c);
  for (const session of [withEmail, withoutEmail]) {
    const picked = await pick(c, session.id, 'eth');
    t.is((await simulate(c, picked.body.invoice_id, 'detect')).status, 200);
    const partial = await simulate(c, picked.body.invoice_id, 'partial', { fraction: 0.5 });
    t.is(partial.status, 200, JSON.stringify(partial.body));
  }
  const picked = (await c.call('GET', `/checkout-sessions/${withEmail.id}`)).body;
  t.deepEqual(await mailJobs(gw, 'sessions.notice-email', withEmail.id), [{ sessionId: withEmail.id, invoiceId: picked.invoice_id }]);
  t.deepEqual(await mailJobs(gw, 'sessions.notice-email', withoutEmail.id), []);
  t.is(picked.status, 'open');
});

test('the partner ends a session: its pending invoice is cancelled and checkout_session.expired is sent; a second end is 409', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  const picked = await pick(c, session.id, 'usdt_trc20');
  const ended = await c.call('POST', `/checkout-sessions/${session.id}/expire`);
  t.is(ended.status, 200, JSON.stringify(ended.body));
  t.like(ended.body, { status: 'expired', receipt_url: null });
  t.is((await c.call('GET', `/invoices/${picked.body.invoice_id}`)).body.status, 'cancelled');
  t.deepEqual(await eventTypes(gw, c.projectId, 'checkout_session.'), ['checkout_session.expired']);
  const again = await c.call('POST', `/checkout-sessions/${session.id}/expire`);
  t.is(again.status, 409);
  t.is(again.body.error_code, 'checkout_session_closed');
  t.is((await pick(c, session.id, 'btc')).body.error_code, 'checkout_session_closed');
});

test('the expiry job ends sessions past their deadline unless their invoice is being paid, which waits', async (t) => {
  const c = await sandboxClient(gw);
  const idle = await usdSession(c, { expires_in: 300 });
  const picked = await usdSession(c, { expires_in: 300 });
  const picksInvoice = (await pick(c, picked.id, 'btc')).body.invoice_id;
  const paying = await usdSession(c, { expires_in: 300 });
  const payingInvoice = (await pick(c, paying.id, 'eth')).body.invoice_id;
  await simulate(c, payingInvoice, 'detect');
  const later = await usdSession(c, { expires_in: 3600 });

  const closer = gw.kernel.cradle.sessionsCloser;
  await closer.expireDue({ asOf: new Date(Date.now() + 600_000) });
  const status = async (id: string) => (await c.call('GET', `/checkout-sessions/${id}`)).body.status;
  t.is(await status(idle.id), 'expired');
  t.is(await status(picked.id), 'expired');
  t.is((await c.call('GET', `/invoices/${picksInvoice}`)).body.status, 'cancelled');
  t.is(await status(paying.id), 'open', 'a payment is on its way: the session waits for its invoice');
  t.is(await status(later.id), 'open');
  t.deepEqual(await eventTypes(gw, c.projectId, 'checkout_session.'), ['checkout_session.expired', 'checkout_session.expired']);

  // The payment confirms after the deadline: the session completes all the same.
  await simulate(c, payingInvoice, 'paid');
  t.is(await status(paying.id), 'completed');
});

test('a payment to an invoice the payer switched away from (expired, then paid late) is credited to the completed session as late, with no second completed event', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  const btc = (await pick(c, session.id, 'btc')).body.invoice_id;
  t.is((await simulate(c, btc, 'expire')).status, 200);
  const eth = (await pick(c, session.id, 'eth')).body.invoice_id;
  await pay(c, eth);
  const late = await simulate(c, btc, 'late-payment');
  t.is(late.status, 200, JSON.stringify(late.body));
  const done = (await c.call('GET', `/checkout-sessions/${session.id}`)).body;
  t.like(done, { status: 'completed', invoice_id: eth });
  t.deepEqual(
    done.invoices.map((i: any) => [i.invoice_id, i.status, i.late]),
    [
      [btc, 'expired_paid_late', true],
      [eth, 'paid', false],
    ],
  );
  t.deepEqual(await eventTypes(gw, c.projectId, 'checkout_session.'), ['checkout_session.completed']);
});

test('an expired session whose abandoned invoice is paid late completes with it', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  const btc = (await pick(c, session.id, 'btc')).body.invoice_id;
  await simulate(c, btc, 'expire');
  const ended = await c.call('POST', `/checkout-sessions/${session.id}/expire`);
  t.is(ended.body.status, 'expired', JSON.stringify(ended.body));
  await simulate(c, btc, 'late-payment');
  const done = (await c.call('GET', `/checkout-sessions/${session.id}`)).body;
  t.like(done, { status: 'completed', invoice_id: btc });
  t.true(done.invoices[0].late);
  t.deepEqual(await eventTypes(gw, c.projectId, 'checkout_session.'), ['checkout_session.expired', 'checkout_session.completed']);
});

test('a late payment short of the price does not complete the session: its invoice is kept, late, and the session stays expired', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  const btc = (await pick(c, session.id, 'btc')).body.invoice_id;
  await simulate(c, btc, 'expire');
  t.is((await c.call('POST', `/checkout-sessions/${session.id}/expire`)).body.status, 'expired');
  const invoice = (await c.call('GET', `/invoices/${btc}`)).body;
  const short = BigInt(invoice.amount_crypto_units) / 2n;
  const late = await simulate(c, btc, 'event', {
    eventType: 'invoice.expired_paid_late',
    amountUnits: short.toString(),
    confirmations: 6,
    blockHeight: 100,
    expectedCurrentStatus: 'expired',
  });
  t.is(late.status, 200, JSON.stringify(late.body));
  t.is((await c.call('GET', `/invoices/${btc}`)).body.status, 'expired_paid_late');
  const after = (await c.call('GET', `/checkout-sessions/${session.id}`)).body;
  t.like(after, { status: 'expired', receipt_url: null });
  t.deepEqual(
    after.invoices.map((i: any) => [i.invoice_id, i.status, i.late]),
    [[btc, 'expired_paid_late', true]],
  );
  t.deepEqual(await eventTypes(gw, c.projectId, 'checkout_session.'), ['checkout_session.expired']);
});

test('the expiry pass pages past sessions still waiting for their invoice: those behind them expire', async (t) => {
  const c = await sandboxClient(gw);
  const waiting: string[] = [];
  for (let n = 0; n < 2; n++) {
    // Deadlines beyond the other expiry test's clock (+600 s), which runs alongside.
    const paying = await usdSession(c, { expires_in: 900 });
    await simulate(c, (await pick(c, paying.id, 'eth')).body.invoice_id, 'detect');
    waiting.push(paying.id);
  }
  const idle = await usdSession(c, { expires_in: 901 });
  await gw.kernel.cradle.sessionsCloser.expireDue({ pageSize: 2, asOf: new Date(Date.now() + 1200_000) });
  const status = async (id: string) => (await c.call('GET', `/checkout-sessions/${id}`)).body.status;
  t.deepEqual(await Promise.all(waiting.map(status)), ['open', 'open']);
  t.is(await status(idle.id), 'expired');
});

test("a sandbox project's reset removes its sessions", async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  await pick(c, session.id, 'btc');
  const reset = await c.call('POST', `/${c.projectId}/reset`);
  t.is(reset.status, 200, JSON.stringify(reset.body));
  t.is((await c.call('GET', `/checkout-sessions/${session.id}`)).status, 404);
  t.deepEqual(await gw.kernel.cradle.db('sessions_invoices').where({ session_id: session.id }), []);
});

test('a session creates at most 10 invoices per 10 minutes (each takes a pool address): the 11th new invoice is 429; answering the current one is not counted', async (t) => {
  const c = await sandboxClient(gw);
  const session = (await c.call('POST', '/checkout-sessions', { price_currency: 'btc', price_amount: '0.001' })).body;
  for (let n = 1; n <= 10; n++) {
    const picked = await pick(c, session.id, 'btc');
    t.is(picked.status, 200, JSON.stringify(picked.body));
    t.is((await pick(c, session.id, 'btc')).body.invoice_id, picked.body.invoice_id);
    // The invoice expires: the next pick of the coin needs a new one.
    t.is((await simulate(c, picked.body.invoice_id, 'expire')).status, 200);
  }
  const refused = await pick(c, session.id, 'btc');
  t.is(refused.status, 429);
  t.is(refused.body.error_code, 'rate_limit_exceeded');
  t.truthy(refused.headers.get('retry-after'));
  t.is((await c.call('GET', `/checkout-sessions/${session.id}`)).body.invoices.length, 10);
});

test('concurrent picks of one session: the same coin gives one invoice; different coins leave one pending current invoice, every other recorded and cancelled', async (t) => {
  const c = await sandboxClient(gw);
  const session = await usdSession(c);
  const same = await Promise.all([1, 2, 3, 4].map(() => pick(c, session.id, 'btc')));
  t.true(
    same.every((r) => r.status === 200),
    JSON.stringify(same.map((r) => r.body)),
  );
  t.is(new Set(same.map((r) => r.body.invoice_id)).size, 1);
  t.is((await c.call('GET', `/checkout-sessions/${session.id}`)).body.invoices.length, 1);

  const mixed = await Promise.all(['eth', 'usdt_trc20', 'eth', 'btc'].map((coin) => pick(c, session.id, coin)));
  t.true(
    mixed.every((r) => r.status === 200 || r.body.error_code === 'checkout_session_payment_in_progress'),
    JSON.stringify(mixed.map((r) => r.body)),
  );
  const after = (await c.call('GET', `/checkout-sessions/${session.id}`)).body;
  const pending = after.invoices.filter((i: any) => i.status === 'pending');
  t.deepEqual(
    pending.map((i: any) => i.invoice_id),
    [after.invoice_id],
  );
  t.true(after.invoices.filter((i: any) => i.invoice_id !== after.invoice_id).every((i: any) => i.status === 'cancelled'));
  // Every invoice the picks created is the session's: none is left outside it.
  const all = (await c.call('GET', '/invoices?limit=200')).body.items.filter((i: any) => i.external_id.startsWith(`cs_${session.id}_`));
  t.deepEqual(all.map((i: any) => i.id).sort(), after.invoices.map((i: any) => i.invoice_id).sort());
  t.true(all.filter((i: any) => i.id !== after.invoice_id).every((i: any) => i.status === 'cancelled'));
});

test('a EUR price becomes the invoice’s fiat price at the EUR rate when the payer picks; a currency without a rate now is 503 rate_quote_unavailable', async (t) => {
  const c = await sandboxClient(gw);
  const eur = await usdSession(c, { price_currency: 'EUR', price_amount: '100.00' });
  const picked = await pick(c, eur.id, 'eth');
  t.is(picked.status, 200, JSON.stringify(picked.body));
  const invoice = (await c.call('GET', `/invoices/${picked.body.invoice_id}`)).body;
  t.like(invoice, { price_currency: 'EUR', price_amount: '100.00', price_rate: '1.08', amount_usd: 108 });
  t.is(picked.body.price_amount, '100.00');
  const gbp = await usdSession(c, { price_currency: 'GBP', price_amount: '10' });
  const refused = await pick(c, gbp.id, 'eth');
  t.is(refused.status, 503, JSON.stringify(refused.body));
  t.is(refused.body.error_code, 'rate_quote_unavailable');
  t.truthy(refused.headers.get('retry-after'));
  t.deepEqual((await c.call('GET', `/checkout-sessions/${gbp.id}`)).body.invoices, [], 'no invoice was made');
});

test("a session offers only the coins the project's invoice policy enables: without allowed_coins it lists them, and a disabled one is refused", async (t) => {
  const c = await sandboxClient(gw);
  await gw.kernel.cradle.invoicesPolicies.set(c.projectId, { enabledCoins: ['btc', 'eth'] }, CLI_ACTOR);
  const created = await c.call('POST', '/checkout-sessions', { price_currency: 'USD', price_amount: '10.00' });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.deepEqual(created.body.allowed_coins, ['btc', 'eth']);
  const refused = await c.call('POST', '/checkout-sessions', { price_currency: 'USD', price_amount: '10.00', allowed_coins: ['btc', 'usdt_trc20'] });
  t.is(refused.status, 422);
  t.is(refused.body.error_code, 'coin_not_allowed');
  t.is(refused.body.details.coin, 'usdt_trc20');
});

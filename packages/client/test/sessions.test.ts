/**
 * The checkout session and payment link resources of @gw/client (built, dist/esm) against a real
 * gateway with every plugin of this build on a test database: a sandbox partner's session from
 * creation to completed (pick and payment simulated), its idempotent create and its retries, links
 * from creation to deactivation, and the typed errors of refusals.
 */
import test from 'ava';
import { FaultProxy } from '@gw/testing';
import { builtClientFixture } from './built-client-fixture.js';

const f = builtClientFixture(test);

test.serial('a checkout session: created once per idempotency key, listed, picked, paid to completed; a closed one refuses expire', async (t) => {
  const { sandbox } = f.client();
  const externalId = `ts-order-${Date.now()}`;
  const body = { price_currency: 'eth', price_amount: '0.02', description: 'Order', external_id: externalId, metadata: { cart: 7 } };
  const first = await sandbox.checkoutSessions.createWithStatus(body, { idempotencyKey: `s-${externalId}` });
  t.true(first.created);
  const session = first.session;
  t.like(session, { object: 'checkout_session', mode: 'sandbox', status: 'open', price_currency: 'eth', price_amount: '0.02', coin: null, invoice_id: null });
  t.deepEqual(session.allowed_coins, ['eth'], 'a session priced in a coin is paid in that coin');
  t.deepEqual(session.metadata, { cart: 7 });
  t.regex(session.url, /\/pay\/[0-9a-f]{32}$/);
  const replay = await sandbox.checkoutSessions.createWithStatus(body, { idempotencyKey: `s-${externalId}` });
  t.false(replay.created);
  t.deepEqual(replay.session, session);
  const reused = await t.throwsAsync(sandbox.checkoutSessions.create({ ...body, price_amount: '0.03' }, { idempotencyKey: `s-${externalId}` }), {
    instanceOf: f.sdk.GatewayError,
  });
  t.is(reused.errorCode, 'idempotency_key_reused');
  t.is(reused.status, 422);

  const other = await sandbox.checkoutSessions.create({ price_currency: 'btc', price_amount: '0.001', external_id: `${externalId}-b` });
  const listed = await sandbox.checkoutSessions.list({ external_id: externalId });
  t.deepEqual(
    listed.items.map((s) => s.id),
    [session.id],
  );
  const page = await sandbox.checkoutSessions.list({ limit: 1 });
  t.is(page.items[0]!.id, other.id, 'newest first');
  t.truthy(page.next_cursor);
  const all: string[] = [];
  for await (const s of sandbox.checkoutSessions.iterate({ limit: 1 })) all.push(s.id);
  t.true(all.includes(session.id) && all.includes(other.id));
  t.is(new Set(all).size, all.length);

  const picked = await sandbox.simulate.pick(session.id, 'eth');
  t.is(picked.coin, 'eth');
  t.truthy(picked.invoice_id);
  await sandbox.simulate.detect(picked.invoice_id!);
  await sandbox.simulate.paid(picked.invoice_id!);
  const completed = await sandbox.checkoutSessions.retrieve(session.id);
  t.is(completed.status, 'completed');
  t.regex(completed.receipt_url ?? '', /\/receipts\/[0-9a-f]{32}$/);
  t.deepEqual(
    completed.invoices.map((i) => [i.invoice_id, i.coin, i.late]),
    [[picked.invoice_id, 'eth', false]],
  );
  t.deepEqual(
    (await sandbox.checkoutSessions.list({ status: 'completed' })).items.map((s) => s.id),
    [session.id],
  );
  const closed = await t.throwsAsync(sandbox.checkoutSessions.expire(session.id), { instanceOf: f.sdk.GatewayError });
  t.is(closed.errorCode, 'checkout_session_closed');
  t.is(closed.status, 409);
  t.is((await sandbox.checkoutSessions.expire(other.id)).status, 'expired');

  const unknown = await t.throwsAsync(sandbox.checkoutSessions.create({ price_currency: 'XYZ', price_amount: '5' }), { instanceOf: f.sdk.GatewayError });
  t.is(unknown.errorCode, 'validation_error');
  t.is(unknown.status, 400);
  const notAllowed = await t.throwsAsync(sandbox.checkoutSessions.create({ price_currency: 'USD', price_amount: '5', allowed_coins: ['btc', 'nocoin'] }), {
    instanceOf: f.sdk.GatewayError,
  });
  t.is(notAllowed.errorCode, 'coin_not_allowed');
  t.is(notAllowed.status, 422);
  const missing = await t.throwsAsync(sandbox.checkoutSessions.retrieve('01ARZ3NDEKTSV4RRFFQ69G5FAV'), { instanceOf: f.sdk.GatewayError });
  t.is(missing.errorCode, 'checkout_session_not_found');
  t.is(missing.status, 404);
});

test.serial('payment links: fixed and ranged, listed by state, retrieved with their uses, deactivated', async (t) => {
  const { sandbox } = f.client();
  const fixed = await sandbox.paymentLinks.create({ price_currency: 'USD', price_amount: '25', description: 'Beans', max_uses: 10 });
  t.like(fixed, { object: 'payment_link', active: true, price_amount: '25.00', min_amount: null, uses: 0, max_uses: 10, ask_email: true });
  t.is(fixed.qr_url, `${fixed.url}/qr.svg`);
  const first = await sandbox.paymentLinks.createWithStatus(
    { price_currency: 'EUR', min_amount: '5', max_amount: '500', ask_email: false },
    { idempotencyKey: 'tips' },
  );
  t.true(first.created);
  const ranged = first.link;
  t.like(ranged, { price_amount: null, min_amount: '5.00', max_amount: '500.00', ask_email: false });
  const replay = await sandbox.paymentLinks.createWithStatus(
    { price_currency: 'EUR', min_amount: '5', max_amount: '500', ask_email: false },
    { idempotencyKey: 'tips' },
  );
  t.false(replay.created);
  t.is(replay.link.id, ranged.id);

  t.deepEqual(
    (await sandbox.paymentLinks.list()).items.map((l) => l.id),
    [ranged.id, fixed.id],
  );
  const iterated: string[] = [];
  for await (const link of sandbox.paymentLinks.iterate({ limit: 1 })) iterated.push(link.id);
  t.deepEqual(iterated, [ranged.id, fixed.id]);
  t.is((await sandbox.paymentLinks.retrieve(fixed.id)).description, 'Beans');
  const deactivated = await sandbox.paymentLinks.deactivate(fixed.id);
  t.false(deactivated.active);
  t.truthy(deactivated.deactivated_at_iso);
  t.deepEqual(
    (await sandbox.paymentLinks.list({ active: 'true' })).items.map((l) => l.id),
    [ranged.id],
  );
  t.deepEqual(
    (await sandbox.paymentLinks.list({ active: 'false' })).items.map((l) => l.id),
    [fixed.id],
  );
  const both = await t.throwsAsync(sandbox.paymentLinks.create({ price_currency: 'USD', price_amount: '5', min_amount: '1', max_amount: '9' }), {
    instanceOf: f.sdk.GatewayError,
  });
  t.is(both.errorCode, 'validation_error');
  const missing = await t.throwsAsync(sandbox.paymentLinks.deactivate('01ARZ3NDEKTSV4RRFFQ69G5FAV'), { instanceOf: f.sdk.GatewayError });
  t.is(missing.errorCode, 'payment_link_not_found');
  t.is(missing.status, 404);
});

test.serial(
  'retry safety comes from x-retry-safe, or from an idempotency key: a keyed create is retried into one session, an unkeyed one is sent once',
  async (t) => {
    t.true(f.sdk.isIdempotent('getCheckoutSessions'));
    t.true(f.sdk.isIdempotent('getPaymentLinksById'));
    t.false(f.sdk.isIdempotent('postCheckoutSessions'));
    t.false(f.sdk.isIdempotent('postPaymentLinksByIdDeactivate'));
    const proxy = await FaultProxy.start(f.gw.url);
    t.teardown(() => proxy.close());
    const { sandbox } = f.client(proxy.url);
    const externalId = `retry-${Date.now()}`;
    proxy.faults.push({ kind: 'status', status: 503, retryAfter: '0' });
    const session = await sandbox.checkoutSessions.create(
      { price_currency: 'eth', price_amount: '0.01', external_id: externalId },
      { idempotencyKey: externalId },
    );
    t.deepEqual(proxy.seen, ['POST /api/v1/sandbox/checkout-sessions', 'POST /api/v1/sandbox/checkout-sessions']);
    t.deepEqual(
      (await sandbox.checkoutSessions.list({ external_id: externalId })).items.map((s) => s.id),
      [session.id],
      'one session despite two attempts',
    );
    proxy.seen.length = 0;
    proxy.faults.push({ kind: 'status', status: 503, retryAfter: '0' });
    const refused = await t.throwsAsync(sandbox.paymentLinks.create({ price_currency: 'USD', price_amount: '5' }), { instanceOf: f.sdk.GatewayError });
    t.is(refused.status, 503);
    t.is(proxy.seen.length, 1, 'a create without a key is sent once');
    proxy.seen.length = 0;
    proxy.faults.push({ kind: 'status', status: 429, retryAfter: '0' });
    t.is((await sandbox.checkoutSessions.retrieve(session.id)).id, session.id);
    t.is(proxy.seen.length, 2, 'a read is retried');
  },
);

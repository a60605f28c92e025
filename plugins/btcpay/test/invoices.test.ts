import test, { type ExecutionContext } from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { assertGreenfieldAnswer, greenfieldDocument } from './greenfield-document.js';
import { greenfield, issueKey, newOwner, sandboxClient, startBtcpayKernel, type GreenfieldAnswer, type Owner, type SandboxClient } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startBtcpayKernel();
});
test.after.always(async () => {
  await gw?.close();
});

/**
 * Asserts the answer is one BTCPay's document allows. BTCPay serves one invoice at its store path
 * (what its client calls) and at the store-less path its newer document describes; the document
 * checks the first as the second.
 */
function allowed(t: ExecutionContext, method: string, path: string, answer: GreenfieldAnswer): void {
  const storeless = path.replace(/^\/api\/v1\/stores\/[^/]+\/invoices\/(?=[^/?]+)/, '/api/v1/invoices/');
  assertGreenfieldAnswer(t, method, greenfieldDocument().operation(method, path) ? path : storeless, answer);
}

/** A call, its answer checked against BTCPay's document. */
async function call(t: ExecutionContext, token: string, method: string, path: string, body?: unknown): Promise<GreenfieldAnswer> {
  const answer = await greenfield(gw, token, method, path, body);
  allowed(t, method, path, answer);
  return answer;
}

/** A store with a key that may do everything with invoices on it. */
async function shop(): Promise<{ owner: Owner; store: SandboxClient; token: string; keyId: string }> {
  const owner = await newOwner(gw);
  const store = await sandboxClient(gw, undefined, owner.operatorId);
  const { token, keyId } = await issueKey(gw, owner, [`btcpay.store.canmodifyinvoices:${store.projectId}`]);
  return { owner, store, token, keyId };
}

/** How many rows of `table` the project has. */
async function rowsOf(table: string, projectId: string): Promise<number> {
  const [row] = await gw.kernel.cradle.db(table).where({ project_id: projectId }).count('* as n');
  return Number(row?.['n'] ?? 0);
}

const counts = async (projectId: string) => ({ sessions: await rowsOf('sessions_sessions', projectId), invoices: await rowsOf('btcpay_invoices', projectId) });

test('a fiat invoice is a checkout session: the order, metadata and checkout options kept and answered as BTCPay does', async (t) => {
  const { store, token, keyId } = await shop();
  // As BTCPay's PHP client sends it for the WooCommerce plugin: every checkout option present, null when unset.
  const created = await call(t, token, 'POST', `/api/v1/stores/${store.projectId}/invoices`, {
    amount: '10.50',
    currency: 'EUR',
    metadata: {
      orderId: '1001',
      buyerEmail: 'Buyer@Shop.example',
      itemDesc: 'Tea',
      taxIncluded: '0.50',
      posData: { 'Order ID': 17, items: [{ name: 'Pu Erh', quantity: 1 }] },
      orderUrl: 'https://shop.example/wp-admin/post.php?post=17',
    },
    checkout: {
      speedPolicy: 'HighSpeed',
      paymentMethods: ['BTC-CHAIN', 'eth-chain'],
      expirationMinutes: 30,
      monitoringMinutes: null,
      paymentTolerance: null,
      redirectURL: 'https://shop.example/checkout/order-received/{OrderId}/?key=wc_order_x',
      redirectAutomatically: true,
      defaultLanguage: 'fr-FR',
    },
  });
  t.is(created.status, 200, created.text);
  const invoice = created.body;
  const session = await gw.kernel.cradle.sessionsCheckout.get(store.projectId, invoice.id);
  t.like(session, {
    status: 'open',
    price_currency: 'EUR',
    price_amount: '10.50',
    allowed_coins: ['btc', 'eth'],
    external_id: '1001',
    customer_email: 'buyer@shop.example',
    description: 'Tea',
    return_url: 'https://shop.example/checkout/order-received/1001/?key=wc_order_x',
  });
  t.is((Date.parse(session.expires_at_iso) - Date.parse(session.created_at_iso)) / 1000, 1800);
  t.like(invoice, {
    storeId: store.projectId,
    amount: '10.50',
    currency: 'EUR',
    type: 'Standard',
    checkoutLink: session.url,
    status: 'New',
    additionalStatus: 'None',
    archived: false,
    availableStatusesForManualMarking: ['Settled', 'Invalid'],
    expirationTime: invoice.createdTime + 1800,
    monitoringExpiration: invoice.createdTime + 1800 + 1440 * 60,
  });
  t.deepEqual(invoice.metadata.posData, { 'Order ID': 17, items: [{ name: 'Pu Erh', quantity: 1 }] });
  t.is(invoice.metadata.orderId, '1001');
  t.deepEqual(invoice.checkout, {
    speedPolicy: 'HighSpeed',
    paymentMethods: ['BTC-CHAIN', 'ETH-CHAIN'],
    lazyPaymentMethods: true,
    expirationMinutes: 30,
    monitoringMinutes: 1440,
    paymentTolerance: 0,
    redirectURL: 'https://shop.example/checkout/order-received/{OrderId}/?key=wc_order_x',
    redirectAutomatically: true,
    defaultLanguage: 'fr-FR',
  });
  t.deepEqual(invoice.receipt, { enabled: true, showQR: true, showPayments: true });

  // Read back at the client's store path and at the store-less one: the same invoice.
  const read = await call(t, token, 'GET', `/api/v1/stores/${store.projectId}/invoices/${invoice.id}`);
  t.deepEqual(read.body, invoice);
  t.deepEqual((await call(t, token, 'GET', `/api/v1/invoices/${invoice.id}`)).body, invoice);

  // The session's creation is audited as the key's, through the btcpay channel.
  const [audit] = await gw.kernel.cradle.db('kernel_audit_log').where({ target: `checkout_session:${invoice.id}`, action: 'checkout_session.create' });
  t.like(audit, { actor: `btcpay_key:${keyId}`, channel: 'btcpay' });
});

/** `GET {prefix}/i/{invoiceId}` as a browser follows it: no key, the redirect not followed. */
async function publicCheckout(invoiceId: string): Promise<Response> {
  return fetch(`${gw.url}${gw.kernel.cradle.btcpayConfig.pathPrefix}/i/${encodeURIComponent(invoiceId)}`, { redirect: 'manual' });
}

// Serial: it expires every open session, which ava does before the concurrent tests make theirs.
test.serial('BTCPay’s public /i/{invoiceId} sends the payer to the checkout link, expired too; an unknown id is 404 invoice-not-found', async (t) => {
  const { store, token } = await shop();
  const created = await call(t, token, 'POST', `/api/v1/stores/${store.projectId}/invoices`, { amount: '5', currency: 'EUR', metadata: { orderId: 'i-1' } });
  t.is(created.status, 200, created.text);
  const { id, checkoutLink } = created.body;

  const open = await publicCheckout(id);
  t.is(open.status, 302);
  t.is(open.headers.get('location'), checkoutLink);
  t.is(open.headers.get('cache-control'), 'no-store');
  // The link is on the configured public base URL; its page is served here.
  const page = new URL(checkoutLink);
  t.is((await fetch(`${gw.url}${page.pathname}${page.search}`)).status, 200, 'the link it sends to is the payer’s page');

  // As BTCPay shows an expired invoice's checkout (saying it expired), the link still leads there.
  await gw.kernel.cradle.sessionsCloser.expireDue({ asOf: new Date(Date.now() + 86_400_000) });
  t.like(await gw.kernel.cradle.sessionsCheckout.get(store.projectId, id), { status: 'expired' });
  const expired = await publicCheckout(id);
  t.is(expired.status, 302);
  t.is(expired.headers.get('location'), checkoutLink);
  t.is((await fetch(`${gw.url}${page.pathname}${page.search}`)).status, 200, 'the expired session’s page says so');

  for (const unknown of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'not-an-invoice']) {
    const missing = await publicCheckout(unknown);
    t.is(missing.status, 404, unknown);
    t.is(missing.headers.get('location'), null);
    const body = (await missing.json()) as Record<string, unknown>;
    t.is(body['code'], 'invoice-not-found', unknown);
    t.is(typeof body['message'], 'string');
  }
});

test('a coin invoice is paid in that coin only; expirationMinutes is clamped to the sessions’ lifetimes; no currency is USD', async (t) => {
  const { store, token } = await shop();
  const coin = await call(t, token, 'POST', `/api/v1/stores/${store.projectId}/invoices`, {
    amount: '0.001',
    currency: 'btc',
    checkout: { expirationMinutes: 1 },
  });
  t.is(coin.status, 200, coin.text);
  t.like(coin.body, { amount: '0.001', currency: 'BTC', checkout: { paymentMethods: ['BTC-CHAIN'], expirationMinutes: 5 } });
  t.like(await gw.kernel.cradle.sessionsCheckout.get(store.projectId, coin.body.id), { price_currency: 'btc', allowed_coins: ['btc'] });

  const long = await call(t, token, 'POST', `/api/v1/stores/${store.projectId}/invoices`, {
    amount: 25,
    currency: null,
    checkout: { expirationMinutes: 100_000 },
  });
  t.is(long.status, 200, long.text);
  t.like(long.body, { amount: '25.00', currency: 'USD', checkout: { expirationMinutes: 7 * 24 * 60, speedPolicy: 'MediumSpeed' } });
  // Without paymentMethods the payer may pick every coin of the store, as BTCPay offers every enabled payment method.
  const session = await gw.kernel.cradle.sessionsCheckout.get(store.projectId, long.body.id);
  t.true(session.allowed_coins.length > 2);
  t.deepEqual(
    long.body.checkout.paymentMethods,
    session.allowed_coins.map((c) => `${c.toUpperCase()}-CHAIN`),
  );
});

test('bad input is BTCPay’s 422 list naming every field, and nothing is written', async (t) => {
  const { store, token } = await shop();
  const before = await counts(store.projectId);
  const path = `/api/v1/stores/${store.projectId}/invoices`;
  const many = await call(t, token, 'POST', path, {
    amount: '-1',
    checkout: {
      speedPolicy: 'Fast',
      paymentMethods: ['BTC-LN', 'XYZ-CHAIN', 'BTC-CHAIN'],
      expirationMinutes: 0.1,
      paymentTolerance: 150,
      redirectAutomatically: 'yes',
    },
    receipt: { showQR: 'no' },
  });
  t.is(many.status, 422);
  t.deepEqual(
    many.body.map((issue: { path: string }) => issue.path),
    [
      'amount',
      'checkout.speedPolicy',
      'checkout.paymentMethods[0]',
      'checkout.paymentMethods[1]',
      'checkout.expirationMinutes',
      'checkout.paymentTolerance',
      'checkout.redirectAutomatically',
      'receipt.showQR',
    ],
  );
  t.is(many.body[0].message, 'The amount should be 0 or more.');
  t.is(many.body[2].message, 'Invalid PaymentMethodId');

  const cases: [unknown, string][] = [
    [{ currency: 'EUR' }, 'amount'],
    [{ amount: '0', currency: 'EUR' }, 'amount'],
    [{ amount: '1.001', currency: 'EUR' }, 'amount'],
    [{ amount: '5', currency: 'XXX' }, 'currency'],
    [{ amount: '5', currency: 'EUR', checkout: { redirectURL: 'ftp://shop.example/done' } }, 'checkout.redirectURL'],
    [{ amount: '5', currency: 'EUR', checkout: { redirectURL: 'https://shop.example/i/{InvoiceId}' } }, 'checkout.redirectURL'],
    [{ amount: '5', currency: 'BTC', checkout: { paymentMethods: ['ETH-CHAIN'] } }, 'checkout.paymentMethods'],
    [{ amount: '5', currency: 'EUR', metadata: ['not', 'an', 'object'] }, 'metadata'],
    [{ amount: '5', currency: 'EUR', metadata: { orderId: { id: 1 } } }, 'metadata.orderId'],
    [{ amount: '5', currency: 'EUR', metadata: { blob: 'x'.repeat(70_000) } }, 'metadata'],
    ['[1, 2]', ''],
  ];
  for (const [body, field] of cases) {
    const answer = await call(t, token, 'POST', path, body);
    t.is(answer.status, 422, `${JSON.stringify(body).slice(0, 100)}: ${answer.text}`);
    t.deepEqual(
      answer.body.map((issue: { path: string }) => issue.path),
      [field],
      JSON.stringify(body).slice(0, 100),
    );
    t.true(answer.body.every((issue: { message: string }) => issue.message.length > 0));
  }
  t.deepEqual(await counts(store.projectId), before);
});

test('a key reaches its own operator’s stores with the permission each call needs, and nothing of another operator’s', async (t) => {
  const { owner, store, token } = await shop();
  const other = await shop();
  const theirs = await call(t, other.token, 'POST', `/api/v1/stores/${other.store.projectId}/invoices`, { amount: '3', currency: 'EUR' });
  t.is(theirs.status, 200);

  // Another operator's store: missing-permission, as BTCPay answers a store its user cannot reach.
  const foreign = await call(t, token, 'POST', `/api/v1/stores/${other.store.projectId}/invoices`, { amount: '3', currency: 'EUR' });
  t.is(foreign.status, 403);
  t.like(foreign.body, { code: 'missing-permission' });
  t.is((await call(t, token, 'GET', `/api/v1/stores/${other.store.projectId}/invoices/${theirs.body.id}`)).status, 403);
  // Its invoice by the store-less path, or under the key's own store: not found.
  t.like((await call(t, token, 'GET', `/api/v1/invoices/${theirs.body.id}`)).body, { code: 'invoice-not-found' });
  const mine = await call(t, token, 'GET', `/api/v1/stores/${store.projectId}/invoices/${theirs.body.id}`);
  t.is(mine.status, 404);
  t.like(mine.body, { code: 'invoice-not-found' });
  t.is((await call(t, token, 'POST', `/api/v1/invoices/${theirs.body.id}/status`, { status: 'Invalid' })).status, 404);
  t.like(await gw.kernel.cradle.sessionsCheckout.get(other.store.projectId, theirs.body.id), { status: 'open' });

  // A view-only key reads but neither creates nor marks; a create-only key creates but does not list.
  const viewer = await issueKey(gw, owner, [`btcpay.store.canviewinvoices:${store.projectId}`]);
  const creator = await issueKey(gw, owner, [`btcpay.store.cancreateinvoice:${store.projectId}`]);
  const refused = await call(t, viewer.token, 'POST', `/api/v1/stores/${store.projectId}/invoices`, { amount: '3', currency: 'EUR' });
  t.is(refused.status, 403);
  t.like(refused.body, { code: 'missing-permission', missingPermission: 'btcpay.store.cancreateinvoice' });
  const ok = await call(t, creator.token, 'POST', `/api/v1/stores/${store.projectId}/invoices`, { amount: '3', currency: 'EUR' });
  t.is(ok.status, 200);
  t.is((await call(t, viewer.token, 'GET', `/api/v1/stores/${store.projectId}/invoices/${ok.body.id}`)).status, 200);
  t.like((await call(t, creator.token, 'GET', `/api/v1/stores/${store.projectId}/invoices`)).body, { code: 'missing-permission' });
  const mark = await call(t, viewer.token, 'POST', `/api/v1/stores/${store.projectId}/invoices/${ok.body.id}/status`, { status: 'Invalid' });
  t.like(mark.body, { code: 'missing-permission', missingPermission: 'btcpay.store.canmodifyinvoices' });
  // payment-methods with includeSensitive asks for the store's settings, as BTCPay does.
  const sensitive = await call(t, viewer.token, 'GET', `/api/v1/stores/${store.projectId}/invoices/${ok.body.id}/payment-methods?includeSensitive=true`);
  t.like(sensitive.body, { code: 'missing-permission', missingPermission: 'btcpay.store.canmodifystoresettings' });
  t.is((await greenfield(gw, undefined, 'GET', `/api/v1/stores/${store.projectId}/invoices/${ok.body.id}`)).status, 401);
});

/**
 * Issue 39, end to end: BTCPay's own PHP client (greenfield-php, run by Debian's php-cli) driven
 * through the WooCommerce plugin's sequence of calls (`php/woocommerce-sequence.php`) against a
 * gateway with the btcpay plugin on, through a proxy that checks every answer against BTCPay's
 * published OpenAPI document. The shop connects (its key, the server, its store, a webhook, the
 * payment methods), takes orders paid in several coins on the sandbox (the payer picks the coin on
 * the hosted page; the test picks and pays through the sandbox's simulations), receives BTCPay's
 * webhooks at a local endpoint and verifies them as the plugin does, marks an invoice invalid,
 * refunds, and gets BTCPay's errors for bad input.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { existsSync } from 'node:fs';
import test from 'ava';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { issueKey, newOwner, sandboxStore, startBtcpayKernel, type Owner, type SandboxClient } from '@gw/plugin-btcpay/testing';
import { Receiver, type ReceivedRequest } from '@gw/testing';
import { GreenfieldValidator } from './greenfield-validator.js';
import { startValidatingProxy, type ValidatingProxy } from './validating-proxy.js';
import { PHP, runWooStep, type WooStep } from './woocommerce-driver.js';

/** GreenfieldApiAuthorization::REQUIRED_PERMISSIONS and OPTIONAL_PERMISSIONS: what the plugin asks for. */
const WOO_PERMISSIONS = [
  'btcpay.store.canviewinvoices',
  'btcpay.store.cancreateinvoice',
  'btcpay.store.canviewstoresettings',
  'btcpay.store.canmodifyinvoices',
  'btcpay.store.cancreatenonapprovedpullpayments',
  'btcpay.store.webhooks.canmodifywebhooks',
];
/** GreenfieldApiWebhook::WEBHOOK_EVENTS. */
const WOO_EVENTS = ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceProcessing', 'InvoiceExpired', 'InvoiceSettled', 'InvoiceInvalid'];

const validator = new GreenfieldValidator();
let gw: TestKernel;
let proxy: ValidatingProxy;
let shop: Receiver;
let owner: Owner;
let store: SandboxClient;
let key: string;
/** What the shop stored while connecting (the plugin's options). */
let shopOptions: { storeId: string; webhook: { id: string; secret: string; url: string }; paymentMethods: string[] } | undefined;
/** What the shop stored; the steps after connecting need it. */
function connected(): NonNullable<typeof shopOptions> {
  if (!shopOptions) throw new Error('the shop did not connect (see the connecting test)');
  return shopOptions;
}

test.before(async () => {
  shop = await Receiver.start();
  gw = await startBtcpayKernel();
  proxy = await startValidatingProxy({ upstream: gw.url, validator, prefix: gw.kernel.cradle.btcpayConfig.pathPrefix });
  owner = await newOwner(gw);
  store = await sandboxStore(gw, owner);
  key = (
    await issueKey(
      gw,
      owner,
      WOO_PERMISSIONS.map((p) => `${p}:${store.projectId}`),
      'WooCommerce',
    )
  ).token;
});
test.after.always(async () => {
  await proxy?.close();
  await gw?.close();
  await shop?.close();
});

/** A step of the WooCommerce sequence with the shop's key, through the validating proxy. */
const woo = (step: WooStep, input: Record<string, unknown> = {}, token = key) => runWooStep(step, { url: proxy.greenfieldUrl, key: token, input });

let orderNumber = 1000;
/** A WooCommerce order as the plugin passes it to createInvoice. */
function order(total: string, currency = 'EUR', extra: Record<string, unknown> = {}) {
  const number = ++orderNumber;
  return {
    id: number,
    number: String(number),
    total,
    currency,
    tax: '3.90',
    editUrl: `https://shop.example/wp-admin/post.php?post=${number}&action=edit`,
    returnUrl: `https://shop.example/checkout/order-received/${number}/?key=wc_order_${number}`,
    speedPolicy: 'MediumSpeed',
    paymentMethods: connected().paymentMethods,
    sendCustomerData: true,
    email: `buyer-${number}@example.test`,
    name: 'Ana Silva',
    ...extra,
  };
}

/** The payer picks `coin` on the hosted page (the sandbox's pick) and pays in full; the session's invoice id. */
async function pay(invoiceId: string, coin: string): Promise<string> {
  const picked = await store.call('POST', `/checkout-sessions/${invoiceId}/simulate-pick`, { coin });
  if (picked.status !== 200) throw new Error(`simulate-pick ${coin}: ${picked.status} ${JSON.stringify(picked.body)}`);
  const paymentInvoice = picked.body.invoice_id as string;
  for (const simulation of ['detect', 'paid']) {
    const res = await store.call('POST', `/invoices/${paymentInvoice}/simulate-${simulation}`, {});
    if (res.status !== 200) throw new Error(`simulate-${simulation}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return paymentInvoice;
}

/** The deliveries the shop received for `invoiceId`, parsed. */
function deliveriesOf(invoiceId: string): { request: ReceivedRequest; event: any }[] {
  return shop.requests.map((request) => ({ request, event: JSON.parse(request.body) })).filter(({ event }) => event.invoiceId === invoiceId);
}

/** Waits until the shop has received an event of each of `types` for `invoiceId`. */
async function waitForEvents(invoiceId: string, types: readonly string[]): Promise<{ request: ReceivedRequest; event: any }[]> {
  return waitFor(
    async () => {
      const received = deliveriesOf(invoiceId);
      return types.every((type) => received.some(({ event }) => event.type === type)) && received;
    },
    30_000,
    `${types.join(', ')} for ${invoiceId} (received: ${deliveriesOf(invoiceId)
      .map(({ event }) => event.type)
      .join(', ')})`,
  );
}

/** BTCPay's scheme: `BTCPay-Sig: sha256=<hex HMAC-SHA256(secret, raw body)>`. */
function signatureValid(request: ReceivedRequest, secret: string): boolean {
  const header = request.headers['btcpay-sig'];
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.body, 'utf8').digest('hex')}`);
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The plugin's webhook handler on every delivery of `invoiceId` (signature with the stored secret,
 * the fields it reads), the same checks in TypeScript, and each body against the document's events.
 */
async function checkDeliveries(t: import('ava').ExecutionContext, invoiceId: string): Promise<any[]> {
  const received = deliveriesOf(invoiceId);
  for (const { request, event } of received) {
    t.true(signatureValid(request, connected().webhook.secret), `BTCPay-Sig of ${event.type}`);
    t.deepEqual(validator.checkWebhookEvent(request.body), [], `${event.type} against the document`);
    t.is(event.storeId, connected().storeId);
    t.is(event.webhookId, connected().webhook.id);
    t.is(typeof event.deliveryId, 'string');
    t.is(typeof event.timestamp, 'number');
  }
  const checked = await woo('webhooks', {
    secret: connected().webhook.secret,
    deliveries: received.map(({ request }) => ({ body: request.body, signature: request.headers['btcpay-sig'] })),
  });
  for (const delivery of checked.deliveries) {
    t.true(delivery.valid, `the plugin's signature check of ${delivery.type}`);
    t.deepEqual(delivery.missing, [], `the fields the plugin reads on ${delivery.type}`);
  }
  return received.map(({ event }) => event);
}

test.serial('php-cli with the curl extension is installed (.ci/run installs php-cli and php-curl)', (t) => {
  t.true(existsSync(PHP), `${PHP} is missing (Debian package php-cli)`);
});

test.serial("connecting the shop: the key's permissions, the server, the store, a webhook and the store's payment methods", async (t) => {
  const result = await woo('connect', { webhookUrl: `${shop.url}/?wc-api=btcpaygf_default` });
  t.is(result.storeId, store.projectId);
  t.true(result.hasSingleStore, 'one store in the permissions');
  t.true(result.hasRequiredPermissions, 'exactly the permissions the plugin requires, beside its optional ones');
  t.true(result.hasRefundsPermission);
  t.true(result.hasWebhookPermission);
  t.deepEqual([...result.apiKey.permissions].sort(), WOO_PERMISSIONS.map((p) => `${p}:${store.projectId}`).sort());
  t.true(
    result.stores.some((s: any) => s.id === store.projectId),
    'the store is listed',
  );
  t.true(result.server.fullySynched, 'fullySynched: the plugin refuses a server still synching');
  t.true(result.server.supportsRefunds, 'a version the plugin treats as supporting refunds (1.7.6 or later)');
  t.is(result.webhook.url, `${shop.url}/?wc-api=btcpaygf_default`);
  t.true(typeof result.webhook.secret === 'string' && result.webhook.secret.length >= 16, 'a generated secret, given once');
  t.true(result.webhook.enabled);
  t.true(result.paymentMethods.includes('BTC_CHAIN'), `BTC on-chain among ${result.paymentMethods.join(', ')}`);
  t.true(result.paymentMethods.length >= 2, 'several coins');
  shopOptions = { storeId: result.storeId, webhook: result.webhook, paymentMethods: result.paymentMethods };
});

test.serial('the webhook is found again and updated as the plugin’s 1.0.3 update does, keeping its secret', async (t) => {
  const result = await woo('webhook-recheck', { storeId: connected().storeId, webhook: connected().webhook });
  t.true(result.exists);
  t.is(result.updated.id, connected().webhook.id);
  t.like(result.events, { everything: false });
  t.deepEqual([...result.events.specificEvents].sort(), [...WOO_EVENTS].sort());
});

/** The settled BTC order, for the refunds. */
let settled: { invoiceId: string; orderNumber: string; total: string };

test.serial('a EUR order paid in BTC: the invoice as created and read, then Settled, with the webhooks the plugin handles', async (t) => {
  const o = order('23.50');
  const checkout = await woo('checkout', { storeId: connected().storeId, order: o });
  const created = checkout.created;
  t.like(created, { amount: '23.50', currency: 'EUR', status: 'New', isNew: true, isSettled: false });
  t.is(created.data.metadata.orderId, o.number);
  t.is(created.data.metadata.orderUrl, o.editUrl);
  t.is(created.data.metadata.buyerEmail, o.email);
  t.is(created.data.checkout.redirectURL, o.returnUrl);
  t.is(created.data.checkout.speedPolicy, 'MediumSpeed');
  t.true(checkout.validInvoiceExists, 'a second visit finds the invoice valid');
  t.is(checkout.reread.id, created.id);
  t.true(created.expirationTime > created.createdTime);
  // The payer is sent to the checkout link: the gateway's hosted page, where the coin is picked.
  const page = await fetch(checkout.redirect);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  // A returning payer is sent to `{BTCPay URL}/i/{invoiceId}`, which must lead to the same page.
  const again = await fetch(checkout.existingRedirect, { redirect: 'manual' });
  t.true([301, 302, 303, 307, 308].includes(again.status), `/i/{invoiceId} redirects (got ${again.status})`);
  t.is(new URL(again.headers.get('location') ?? '', checkout.existingRedirect).href, checkout.redirect);

  await pay(created.id, 'btc');
  await waitForEvents(created.id, ['InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
  const events = await checkDeliveries(t, created.id);
  const settledEvent = events.find((e) => e.type === 'InvoiceSettled');
  t.like(settledEvent, { manuallyMarked: false, overPaid: false });
  t.is(settledEvent.metadata.orderId, o.number);
  const receivedPayment = events.find((e) => e.type === 'InvoiceReceivedPayment');
  t.is(receivedPayment.afterExpiration, false);
  t.is(receivedPayment.paymentMethodId, 'BTC-CHAIN');

  const payments = await woo('order-payments', { storeId: connected().storeId, invoiceId: created.id });
  t.true(payments.invoiceIsFullyPaid, 'invoiceIsFullyPaid');
  t.like(payments.invoice, { status: 'Settled', isSettled: true });
  const btc = payments.paymentMethods.find((m: any) => m.paymentMethod === 'BTC-CHAIN');
  t.truthy(btc?.order, 'BTC-CHAIN has the payment');
  t.is(btc.cryptoCode, 'BTC');
  t.is(btc.order.total_due, '0');
  t.true(Number(btc.order.rate) > 0, 'the EUR rate of BTC');
  t.is(btc.order.payments.length, 1);
  t.like(btc.order.payments[0], { status: 'Settled', destination: btc.destination });
  t.true(btc.order.payments[0].timestamp > 0);
  settled = { invoiceId: created.id, orderNumber: o.number, total: o.total };
});

test.serial('a EUR order paid in an EVM token (USDT on Ethereum) settles the same way', async (t) => {
  const o = order('19.99');
  const { created } = await woo('checkout', { storeId: connected().storeId, order: o });
  await pay(created.id, 'usdt_erc20');
  await waitForEvents(created.id, ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceSettled']);
  await checkDeliveries(t, created.id);
  const payments = await woo('order-payments', { storeId: connected().storeId, invoiceId: created.id });
  t.like(payments.invoice, { status: 'Settled', isSettled: true });
  const paid = payments.paymentMethods.filter((m: any) => m.order);
  t.is(paid.length, 1);
  t.regex(paid[0].paymentMethod, /^USDT/, 'the token’s payment method');
  t.is(paid[0].order.total_due, '0');
});

test.serial('a USD order paid in ETH settles; the invoice lists the coins the shop allowed', async (t) => {
  const o = order('42.00', 'USD');
  const { created } = await woo('checkout', { storeId: connected().storeId, order: o });
  t.deepEqual(
    [...created.data.checkout.paymentMethods].map((m: string) => m.replace(/-/g, '_')).sort(),
    [...connected().paymentMethods].sort(),
    'checkout.paymentMethods as the plugin compares them',
  );
  await pay(created.id, 'eth');
  await waitForEvents(created.id, ['InvoiceSettled']);
  await checkDeliveries(t, created.id);
  const payments = await woo('order-payments', { storeId: connected().storeId, invoiceId: created.id });
  t.true(payments.invoiceIsFullyPaid);
});

test.serial('an order the shop abandons is marked invalid: Invalid (Marked), and InvoiceInvalid says manuallyMarked', async (t) => {
  const { created } = await woo('checkout', { storeId: connected().storeId, order: order('5.00') });
  const { invoice } = await woo('mark-invalid', { storeId: connected().storeId, invoiceId: created.id });
  t.like(invoice, { status: 'Invalid', isInvalid: true, isMarked: true });
  const [invalid] = (await waitForEvents(created.id, ['InvoiceInvalid'])).filter(({ event }) => event.type === 'InvoiceInvalid');
  t.true(invalid!.event.manuallyMarked);
  await checkDeliveries(t, created.id);
});

test.serial('a refund as the plugin makes it (a pull payment of the store) has a working view link', async (t) => {
  const result = await woo('refund', {
    storeId: connected().storeId,
    orderNumber: settled.orderNumber,
    reason: 'damaged in transit',
    amount: '10.00',
    currency: 'EUR',
    paymentMethods: connected().paymentMethods,
  });
  t.true(result.serverSupportsRefunds);
  t.true(result.apiKeyHasRefundPermission);
  t.like(result.pullPayment, { currency: 'EUR', amount: '10.00', archived: false });
  t.is(result.pullPayment.name, `Refund of order ${settled.orderNumber}; damaged in transit`.slice(0, 50));
  t.is(result.reread.id, result.pullPayment.id);
  const claim = await fetch(result.pullPayment.viewLink);
  t.is(claim.status, 200, `the view link ${result.pullPayment.viewLink}`);
  t.regex(claim.headers.get('content-type') ?? '', /text\/html/);
});

test.serial('a refund of the BTC invoice (Invoice::refundInvoice) is a pull payment with a working view link', async (t) => {
  const result = await woo('refund-invoice', {
    storeId: connected().storeId,
    invoiceId: settled.invoiceId,
    refundVariant: 'RateThen',
    paymentMethod: 'BTC-CHAIN',
    name: `Refund of order ${settled.orderNumber}`,
  });
  t.is(result.pullPayment.currency, 'BTC');
  t.true(Number(result.pullPayment.amount) > 0);
  t.is(result.reread.id, result.pullPayment.id);
  t.deepEqual(result.payouts, [], 'nothing claimed yet');
  const claim = await fetch(result.pullPayment.viewLink);
  t.is(claim.status, 200, `the view link ${result.pullPayment.viewLink}`);
});

test.serial("bad input gets BTCPay's error shape and code: permissions, another operator's store, malformed bodies", async (t) => {
  const limitedKey = (await issueKey(gw, owner, [`btcpay.store.canviewinvoices:${store.projectId}`], 'view only')).token;
  const stranger = await newOwner(gw);
  const strangerStore = await sandboxStore(gw, stranger);
  const strangerKey = (
    await issueKey(
      gw,
      stranger,
      WOO_PERMISSIONS.map((p) => `${p}:${strangerStore.projectId}`),
    )
  ).token;
  const strangers = await woo('checkout', { storeId: strangerStore.projectId, order: order('7.00', 'EUR', { paymentMethods: [] }) }, strangerKey);
  const { created: mine } = await woo('checkout', { storeId: connected().storeId, order: order('8.00') });

  const sessionsBefore = (await store.call('GET', '/checkout-sessions?limit=200')).body.items.length;
  const cases = await woo('bad-input', {
    storeId: connected().storeId,
    invoiceId: mine.id,
    limitedKey,
    otherStoreId: strangerStore.projectId,
    otherInvoiceId: strangers.created.id,
  });
  const forbidden = 'BTCPayServer\\Exception\\ForbiddenException';
  const request = 'BTCPayServer\\Exception\\RequestException';
  t.like(cases['wrong-permission'], {
    class: forbidden,
    status: 403,
    body: { code: 'missing-permission', missingPermission: 'btcpay.store.cancreateinvoice' },
  });
  t.like(cases['another-operators-store'], { class: forbidden, status: 403, body: { code: 'missing-permission' } });
  t.like(cases['another-operators-store-read'], { class: forbidden, status: 403, body: { code: 'missing-permission' } });
  t.like(cases['another-operators-invoice'], { class: request, status: 404, body: { code: 'invoice-not-found' } });
  t.like(cases['unknown-invoice'], { class: request, status: 404, body: { code: 'invoice-not-found' } });
  t.like(cases['unknown-key'], { class: request, status: 401, body: { code: 'unauthenticated' } });
  t.like(cases['unknown-webhook'], { class: request, status: 404, body: { code: 'webhook-not-found' } });
  for (const name of ['negative-amount', 'unknown-payment-method', 'mark-unknown-status', 'webhook-bad-url', 'malformed-json']) {
    const found = cases[name];
    t.is(found.status, 422, `${name}: ${JSON.stringify(found)}`);
    t.true(Array.isArray(found.body) && found.body.length > 0, `${name}: BTCPay's validation list`);
  }
  t.regex(cases['negative-amount'].body[0].path, /^amount$/i);
  t.regex(cases['webhook-bad-url'].body[0].path, /^url$/i);
  // Nothing half-written: the refused creates left no session in the store, the refused mark no change.
  t.is((await store.call('GET', '/checkout-sessions?limit=200')).body.items.length, sessionsBefore);
  t.is((await woo('order-payments', { storeId: connected().storeId, invoiceId: mine.id })).invoice.status, 'New');
});

test.serial("every answer the client got is what BTCPay's published document says", (t) => {
  t.true(proxy.exchanges.length > 20, `${proxy.exchanges.length} answers checked`);
  t.deepEqual(proxy.violations, []);
});

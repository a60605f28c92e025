/**
 * Issue 39, end to end on the sandbox: BTCPay's own PHP client (greenfield-php, run by Debian's
 * php-cli) driven through the WooCommerce plugin's sequence of calls (`php/woocommerce-sequence.php`)
 * against a gateway with the btcpay plugin on, through a proxy that checks every answer against
 * BTCPay's published OpenAPI document. The shop connects (its key, the server, its store, a webhook,
 * the payment methods), takes orders paid in several coins (the payer picks the coin on the hosted
 * page; here the sandbox's pick and payment simulations), receives BTCPay's webhooks at a local
 * endpoint and verifies them as the plugin does, marks an invoice invalid, refunds, and gets BTCPay's
 * errors for bad input.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import test from 'ava';
import { freePort, waitFor, type TestKernel } from '@gw/kernel/testing';
import { issueKey, newOwner, sandboxClient, startBtcpayKernel, type Owner, type SandboxClient } from '@gw/plugin-btcpay/testing';
import { GreenfieldValidator } from './greenfield-validator.js';
import { startValidatingProxy, type ValidatingProxy } from './validating-proxy.js';
import { WOO_EVENTS, WOO_PERMISSIONS, WooShop } from './woo-shop.js';
import { PHP } from './woocommerce-driver.js';

const validator = new GreenfieldValidator();
let gw: TestKernel;
let proxy: ValidatingProxy;
let owner: Owner;
let store: SandboxClient;
let shop: WooShop;

test.before(async () => {
  const port = await freePort();
  gw = await startBtcpayKernel({ 'http.port': port, 'http.baseUrl': `http://127.0.0.1:${port}` });
  proxy = await startValidatingProxy({ upstream: gw.url, validator, prefix: gw.kernel.cradle.btcpayConfig.pathPrefix });
  owner = await newOwner(gw);
  store = await sandboxClient(gw, undefined, owner.operatorId);
  const { token } = await issueKey(
    gw,
    owner,
    WOO_PERMISSIONS.map((p) => `${p}:${store.projectId}`),
    'WooCommerce',
  );
  shop = await WooShop.open(proxy.greenfieldUrl, token, validator);
});
test.after.always(async () => {
  await proxy?.close();
  await gw?.close();
  await shop?.close();
});

/** The payer picks `coin` on the hosted page (the sandbox's pick) and pays in full; the paying invoice's id. */
async function pay(invoiceId: string, coin: string): Promise<string> {
  const picked = await store.call('POST', `/checkout-sessions/${invoiceId}/simulate-pick`, { coin });
  if (picked.status !== 200) throw new Error(`simulate-pick ${coin}: ${picked.status} ${JSON.stringify(picked.body)}`);
  const paying = picked.body.invoice_id as string;
  for (const simulation of ['detect', 'paid']) {
    const res = await store.call('POST', `/invoices/${paying}/simulate-${simulation}`, {});
    if (res.status !== 200) throw new Error(`simulate-${simulation}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  return paying;
}

/** The plugin's reads of a paid order (`order-payments`) once the invoice is Settled. */
function settledPayments(invoiceId: string): Promise<any> {
  return waitFor(
    async () => {
      const payments = await shop.step('order-payments', { storeId: shop.stored.storeId, invoiceId });
      return payments.invoice.status === 'Settled' && payments;
    },
    30_000,
    `${invoiceId} Settled`,
  );
}

test.serial('php-cli with the curl extension is installed (.ci/run installs php-cli and php-curl)', (t) => {
  t.true(existsSync(PHP), `${PHP} is missing (Debian package php-cli)`);
  t.true(execFileSync(PHP, ['-m'], { encoding: 'utf8' }).split('\n').includes('curl'), 'PHP has no curl extension (Debian package php-curl)');
});

test.serial('the authorization URL the plugin builds is taken: the merchant is led to sign in, then to the approval page', async (t) => {
  const { url } = await shop.step('authorize-url', { redirect: 'https://shop.example/?btcpay-settings-callback' });
  t.true(url.startsWith(`${proxy.greenfieldUrl}/api-keys/authorize?`), url);
  const answer = await fetch(url, { redirect: 'manual' });
  t.true([302, 303, 307].includes(answer.status), `a signed-out merchant is sent to sign in (got ${answer.status})`);
  const signIn = new URL(answer.headers.get('location') ?? '', url);
  t.regex(signIn.pathname, /^\/dashboard\//, signIn.href);
});

test.serial("connecting the shop: the key's permissions, the server, the store, a webhook and the store's payment methods", async (t) => {
  const result = await shop.connect();
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
  t.true(result.paymentMethods.includes('BTC_CHAIN'), `BTC on-chain among ${result.paymentMethods.join(', ')}`);
  t.true(result.paymentMethods.length >= 2, 'several coins');
});

test.serial('saving the settings registers a webhook for the plugin’s events, its secret given once', async (t) => {
  const webhook = await shop.registerWebhook();
  t.is(webhook.url, shop.webhookUrl);
  t.true(typeof webhook.secret === 'string' && webhook.secret.length >= 16, 'a generated secret');
  t.is(webhook.secretGetter, webhook.secret);
  t.true(webhook.enabled);
  t.true(webhook.automaticRedelivery);
  t.like(webhook.data.authorizedEvents, { everything: false });
  t.deepEqual([...webhook.data.authorizedEvents.specificEvents].sort(), [...WOO_EVENTS].sort());
});

test.serial('the webhook is found again and updated as the plugin’s 1.0.3 update does, keeping its secret', async (t) => {
  const result = await shop.step('webhook-recheck', { storeId: shop.stored.storeId, webhook: shop.webhook });
  t.true(result.exists);
  t.is(result.updated.id, shop.webhook.id);
  t.like(result.events, { everything: false });
  t.deepEqual([...result.events.specificEvents].sort(), [...WOO_EVENTS].sort());
});

/** The settled BTC order, for the refunds. */
let settled: { invoiceId: string; orderNumber: string } | undefined;
/** The settled ETH order, for the refund of an invoice (the BTC one is refunded as the plugin refunds). */
let settledEth: string | undefined;
/** The BTC order's redirect for a returning payer, and its checkout link. */
let returning: { link: string; checkoutLink: string } | undefined;

test.serial('a EUR order paid in BTC: the invoice as created and read, then Settled, with the webhooks the plugin handles', async (t) => {
  const order = shop.order('23.50');
  const checkout = await shop.step('checkout', { storeId: shop.stored.storeId, order });
  const created = checkout.created;
  t.like(created, { amount: '23.50', currency: 'EUR', status: 'New', isNew: true, isSettled: false });
  t.is(created.data.metadata.orderId, order['number']);
  t.is(created.data.metadata.orderUrl, order['editUrl']);
  t.is(created.data.metadata.buyerEmail, order['email']);
  t.is(created.data.checkout.redirectURL, order['returnUrl']);
  t.is(created.data.checkout.speedPolicy, 'MediumSpeed');
  t.true(checkout.validInvoiceExists, 'a second visit finds the invoice valid');
  t.is(checkout.reread.id, created.id);
  t.true(created.expirationTime > created.createdTime);
  // The payer is sent to the checkout link: the gateway's hosted page, where the coin is picked.
  const page = await fetch(checkout.redirect);
  t.is(page.status, 200, checkout.redirect);
  t.regex(page.headers.get('content-type') ?? '', /text\/html/);
  returning = { link: checkout.existingRedirect, checkoutLink: checkout.redirect };

  await pay(created.id, 'btc');
  const payments = await settledPayments(created.id);
  t.true(payments.invoiceIsFullyPaid, 'invoiceIsFullyPaid');
  t.like(payments.invoice, { status: 'Settled', isSettled: true });
  const btc = payments.paymentMethods.find((m: any) => m.paymentMethod === 'BTC-CHAIN');
  t.truthy(btc?.order, 'BTC-CHAIN has the payment');
  t.is(btc.cryptoCode, 'BTC');
  t.is(Number(btc.order.total_due), 0);
  t.true(Number(btc.order.rate) > 0, 'the EUR rate of BTC');
  t.is(btc.order.payments.length, 1);
  t.like(btc.order.payments[0], { status: 'Settled', destination: btc.destination });
  t.true(btc.order.payments[0].timestamp > 0);
  settled = { invoiceId: created.id, orderNumber: order['number'] };

  await shop.waitForEvents(created.id, ['InvoiceReceivedPayment', 'InvoiceProcessing', 'InvoicePaymentSettled', 'InvoiceSettled']);
  const events = await shop.checkDeliveries(t, created.id);
  const settledEvent = events.find((e) => e.type === 'InvoiceSettled');
  t.like(settledEvent, { manuallyMarked: false, overPaid: false });
  t.is(settledEvent.metadata.orderId, order['number']);
  const receivedPayment = events.find((e) => e.type === 'InvoiceReceivedPayment');
  t.is(receivedPayment.afterExpiration, false);
  t.is(receivedPayment.paymentMethodId, 'BTC-CHAIN');
});

test.serial(
  'a returning payer is sent to `{BTCPay URL}/i/{invoiceId}` (the plugin’s redirect for an existing invoice), which leads to the checkout link',
  async (t) => {
    if (!returning) return t.fail('no order (see the BTC order test)');
    const again = await fetch(returning.link, { redirect: 'manual' });
    t.true([301, 302, 303, 307, 308].includes(again.status), `${returning.link} redirects (got ${again.status})`);
    t.is(new URL(again.headers.get('location') ?? '', returning.link).href, returning.checkoutLink);
  },
);

test.serial('a EUR order paid in an EVM token (USDT on Ethereum) settles the same way', async (t) => {
  const { created } = await shop.step('checkout', { storeId: shop.stored.storeId, order: shop.order('19.99') });
  await pay(created.id, 'usdt_erc20');
  const payments = await settledPayments(created.id);
  t.like(payments.invoice, { status: 'Settled', isSettled: true });
  const paid = payments.paymentMethods.filter((m: any) => m.order);
  t.is(paid.length, 1);
  t.is(paid[0].paymentMethod, 'USDT_ERC20-CHAIN');
  t.is(paid[0].cryptoCode, 'USDT_ERC20');
  t.is(Number(paid[0].order.total_due), 0);
  await shop.waitForEvents(created.id, ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceSettled']);
  await shop.checkDeliveries(t, created.id);
});

test.serial('a USD order of one coin (the plugin’s separate ETH gateway) is paid in ETH and settles', async (t) => {
  const { created } = await shop.step('checkout', { storeId: shop.stored.storeId, order: shop.order('42.00', 'USD', { paymentMethods: ['ETH_CHAIN'] }) });
  // validInvoiceExists compares the invoice's methods, `-` read as `_`, with the gateway's.
  t.deepEqual(
    created.data.checkout.paymentMethods.map((m: string) => m.replace(/-/g, '_')),
    ['ETH_CHAIN'],
  );
  await pay(created.id, 'eth');
  t.true((await settledPayments(created.id)).invoiceIsFullyPaid);
  settledEth = created.id;
  await shop.waitForEvents(created.id, ['InvoiceSettled']);
  await shop.checkDeliveries(t, created.id);
});

test.serial('an order the shop abandons is marked invalid: Invalid (Marked), and InvoiceInvalid says manuallyMarked', async (t) => {
  const { created } = await shop.step('checkout', { storeId: shop.stored.storeId, order: shop.order('5.00') });
  const { invoice } = await shop.step('mark-invalid', { storeId: shop.stored.storeId, invoiceId: created.id });
  t.like(invoice, { status: 'Invalid', isInvalid: true, isMarked: true });
  const invalid = (await shop.waitForEvents(created.id, ['InvoiceInvalid'])).find(({ event }) => event.type === 'InvoiceInvalid');
  t.true(invalid?.event.manuallyMarked);
  await shop.checkDeliveries(t, created.id);
});

test.serial('a refund as the plugin makes it (a pull payment of the store) has a working view link', async (t) => {
  if (!settled) return t.fail('no settled order (see the BTC order test)');
  const result = await shop.step('refund', {
    storeId: shop.stored.storeId,
    orderNumber: settled.orderNumber,
    reason: 'damaged in transit',
    amount: '10.00',
    currency: 'EUR',
    paymentMethods: shop.stored.paymentMethods,
  });
  t.true(result.serverSupportsRefunds);
  t.true(result.apiKeyHasRefundPermission);
  t.like(result.pullPayment, { currency: 'EUR', archived: false });
  t.is(Number(result.pullPayment.amount), 10);
  t.is(result.pullPayment.name, `Refund of order ${settled.orderNumber}; damaged in transit`.slice(0, 50));
  t.is(result.reread.id, result.pullPayment.id);
  const claim = await fetch(result.pullPayment.viewLink);
  t.is(claim.status, 200, `the view link ${result.pullPayment.viewLink}`);
  t.regex(claim.headers.get('content-type') ?? '', /text\/html/);
});

test.serial('a refund of the ETH invoice (Invoice::refundInvoice, at the rate of the payment) is a pull payment with a working view link', async (t) => {
  if (!settledEth) return t.fail('no settled ETH order (see the ETH order test)');
  const result = await shop.step('refund-invoice', {
    storeId: shop.stored.storeId,
    invoiceId: settledEth,
    refundVariant: 'RateThen',
    paymentMethod: 'ETH-CHAIN',
    name: 'Refund of the ETH order',
  });
  t.is(result.pullPayment.currency, 'ETH');
  t.true(Number(result.pullPayment.amount) > 0);
  t.is(result.reread.id, result.pullPayment.id);
  t.deepEqual(result.payouts, [], 'nothing claimed yet');
  const claim = await fetch(result.pullPayment.viewLink);
  t.is(claim.status, 200, `the view link ${result.pullPayment.viewLink}`);
});

test.serial("bad input gets BTCPay's error shape and code: permissions, another operator's store, malformed bodies", async (t) => {
  const limitedKey = (await issueKey(gw, owner, [`btcpay.store.canviewinvoices:${store.projectId}`], 'view only')).token;
  const stranger = await newOwner(gw);
  const strangerStore = await sandboxClient(gw, undefined, stranger.operatorId);
  const strangerKey = (
    await issueKey(
      gw,
      stranger,
      WOO_PERMISSIONS.map((p) => `${p}:${strangerStore.projectId}`),
    )
  ).token;
  const strangers = await shop.step('checkout', { storeId: strangerStore.projectId, order: shop.order('7.00', 'EUR', { paymentMethods: [] }) }, strangerKey);
  const { created: mine } = await shop.step('checkout', { storeId: shop.stored.storeId, order: shop.order('8.00') });
  const sessions = async () => (await store.call('GET', '/checkout-sessions?limit=200')).body.items.length as number;
  const sessionsBefore = await sessions();

  const cases = await shop.step('bad-input', {
    storeId: shop.stored.storeId,
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
  t.is(await sessions(), sessionsBefore);
  t.is((await shop.step('order-payments', { storeId: shop.stored.storeId, invoiceId: mine.id })).invoice.status, 'New');
});

test.serial("every answer the client got is what BTCPay's published document says", (t) => {
  t.true(proxy.exchanges.length > 20, `${proxy.exchanges.length} answers checked`);
  t.deepEqual(proxy.violations, []);
});

/**
 * Issue 39 on a real chain: the WooCommerce plugin's sequence through BTCPay's PHP client against a
 * testnet project whose ETH is watched on anvil (Sepolia's chain id, so the gateway's eth/sepolia
 * definitions apply unchanged), every answer checked by the validating proxy. A testnet project,
 * not a production one: production webhooks need an https endpoint, and the shop's endpoint here is
 * a local http receiver; the chain, the watchers and the invoice lifecycle are the production ones.
 * The payer opens the invoice's checkout link, picks ETH with the page's own form, and pays the
 * destination and amount the invoice's payment methods give (as a wallet reads BTCPay's); the real
 * watcher pipeline takes the invoice to Settled and the shop's webhook endpoint receives BTCPay's
 * events, signed.
 */
import test from 'ava';
import { parseEther } from 'ethers';
import { freePort, type TestKernel } from '@gw/kernel/testing';
import { issueKey, newOwner, startBtcpayKernel } from '@gw/plugin-btcpay/testing';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { Anvil, projectWithPools } from '@gw/testing';
import { GreenfieldValidator } from './greenfield-validator.js';
import { startValidatingProxy, type ValidatingProxy } from './validating-proxy.js';
import { WOO_PERMISSIONS, WooShop } from './woo-shop.js';

/** Ethereum Sepolia's chain id (the eth chain's testnet). */
const SEPOLIA_CHAIN_ID = 11155111;
const validator = new GreenfieldValidator();
let anvil: Anvil;
let gw: TestKernel;
let proxy: ValidatingProxy;
let shop: WooShop;
let projectId: string;
let payer: string;

test.before(async () => {
  anvil = await Anvil.start(SEPOLIA_CHAIN_ID);
  const port = await freePort();
  gw = await startBtcpayKernel({
    'http.port': port,
    'http.baseUrl': `http://127.0.0.1:${port}`,
    'plugins.watchers.chains': { eth: { sepolia: { providers: [{ name: 'anvil', url: anvil.url }], startHeight: 0 } } },
    // The test drives each scan pass itself.
    'plugins.watchers.scanIntervalSeconds': 3600,
  });
  proxy = await startValidatingProxy({ upstream: gw.url, validator, prefix: gw.kernel.cradle.btcpayConfig.pathPrefix });
  const owner = await newOwner(gw);
  ({ projectId } = await projectWithPools(gw, owner.operatorId, ['eth'], 'testnet'));
  const { token } = await issueKey(
    gw,
    owner,
    WOO_PERMISSIONS.map((p) => `${p}:${projectId}`),
    'WooCommerce',
  );
  shop = await WooShop.open(proxy.greenfieldUrl, token, validator);
  payer = (await anvil.accounts())[0]!;
});
test.after.always(async () => {
  await proxy?.close();
  await gw?.close();
  await shop?.close();
  await anvil?.stop();
});

const scan = () => scanOnce(gw, 'eth', 'sepolia');

/** The `action` of the page's form that posts to `…/coin` (the coin pick), as written in the page. */
function coinFormAction(page: string): string | undefined {
  for (const match of page.matchAll(/action="([^"]*)"/g)) {
    const action = match[1]!.replaceAll('&amp;', '&');
    if (new URL(action, 'http://page.invalid').pathname.endsWith('/coin')) return action;
  }
  return undefined;
}

/** The payer picks `coin` on the session's page with its form (its double-submit cookie and field), as a browser without JavaScript does. */
async function pickOnPage(checkoutLink: string, coin: string): Promise<Response> {
  const page = await fetch(checkoutLink);
  if (page.status !== 200) throw new Error(`checkout link ${checkoutLink}: ${page.status}`);
  const cookie = page.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const html = await page.text();
  const csrf = /name="csrf" value="([^"]*)"/.exec(html)?.[1];
  const action = coinFormAction(html);
  if (!csrf || !action) throw new Error(`no coin form on ${checkoutLink}`);
  return fetch(new URL(action, checkoutLink), {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, coin }).toString(),
  });
}

test.serial(
  'a EUR order on the plugin’s ETH gateway, paid with real ETH on anvil: Settled, the webhooks signed and read as the plugin reads them, every answer BTCPay’s',
  async (t) => {
    const connected = await shop.connect();
    t.true(connected.hasSingleStore && connected.hasRequiredPermissions, JSON.stringify(connected.apiKey));
    t.true(connected.paymentMethods.includes('ETH_CHAIN'), connected.paymentMethods.join());
    t.false(connected.paymentMethods.includes('BTC_CHAIN'), 'the store has a verified Ethereum wallet only');
    await shop.registerWebhook();

    const order = shop.order('12.34', 'EUR', { paymentMethods: ['ETH_CHAIN'] });
    const { created, redirect } = await shop.step('checkout', { storeId: shop.stored.storeId, order });
    t.like(created, { status: 'New', amount: '12.34', currency: 'EUR' });

    const picked = await pickOnPage(redirect, 'eth');
    t.is(picked.status, 303, 'the pick leads to the coin’s checkout page');

    // What a wallet reads: the ETH method's destination and what is due.
    const before = await shop.step('order-payments', { storeId: shop.stored.storeId, invoiceId: created.id });
    const eth = before.paymentMethods.find((m: any) => m.paymentMethod === 'ETH-CHAIN');
    t.truthy(eth, JSON.stringify(before.paymentMethods));
    t.regex(eth.destination, /^0x[0-9a-fA-F]{40}$/);
    const due: string = eth.data.due;
    t.true(Number(due) > 0, `due ${due}`);
    t.is(eth.data.currency, 'ETH');

    await anvil.sendEth(payer, eth.destination, parseEther(due));
    await scan();
    await shop.waitForEvents(created.id, ['InvoiceReceivedPayment']);
    let status = 'New';
    for (let i = 0; i < 64 && status !== 'Settled'; i++) {
      await anvil.mine(1);
      await scan();
      status = (await shop.step('order-payments', { storeId: shop.stored.storeId, invoiceId: created.id })).invoice.status;
    }
    t.is(status, 'Settled');
    await shop.waitForEvents(created.id, ['InvoiceReceivedPayment', 'InvoicePaymentSettled', 'InvoiceSettled']);
    const events = await shop.checkDeliveries(t, created.id);
    t.is(events.find((e) => e.type === 'InvoiceReceivedPayment').paymentMethodId, 'ETH-CHAIN');

    const after = await shop.step('order-payments', { storeId: shop.stored.storeId, invoiceId: created.id });
    t.true(after.invoiceIsFullyPaid);
    const paid = after.paymentMethods.find((m: any) => m.paymentMethod === 'ETH-CHAIN');
    t.is(paid.order.payments.length, 1);
    t.regex(paid.order.payments[0].id, /^0x[0-9a-f]{64}$/, 'the payment is the transaction (getTransactionId)');
    t.is(parseEther(paid.order.payments[0].amount), parseEther(due), 'the amount paid, as due');
    t.is(paid.order.payments[0].status, 'Settled');

    t.deepEqual(proxy.violations, []);
  },
);

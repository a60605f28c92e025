/**
 * A production invoice's checkout page following a real payment: anvil with Ethereum mainnet's
 * chain id 1 (the gateway's eth/ethereum definitions apply unchanged), the real watcher pipeline
 * (scan passes → invoice lifecycle → `invoices.changed`), the page open in Debian's chromium. The
 * payer pays the address and amount the page shows; the partner's HTTPS return page is answered by
 * the browser's request interception (nothing leaves the machine).
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { freePort, startTestKernel, signedFetch, type TestKernel } from '@gw/kernel/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { Anvil, ALL_CHAINS, CHROMIUM, FIXED_RATES, projectWithPools, type TestProject } from '@gw/testing';
import { parseEther } from 'ethers';
import { chromium, type Browser } from 'playwright-core';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';

const RETURN_URL = 'https://shop.example.com/orders/7?paid=1';
let anvil: Anvil;
let gw: TestKernel;
let browser: Browser;
let project: TestProject;
let payer: string;

test.before(async () => {
  anvil = await Anvil.start(1);
  const port = await freePort();
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin, checkoutPlugin],
    chains: ALL_CHAINS,
    role: 'all',
    config: {
      'http.port': port,
      'http.baseUrl': `http://127.0.0.1:${port}`,
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.watchers.chains': { eth: { ethereum: { providers: [{ name: 'anvil', url: anvil.url }], startHeight: 0 } } },
      // The test drives each scan pass itself.
      'plugins.watchers.scanIntervalSeconds': 3600,
      'plugins.checkout.returnDelaySeconds': 2,
    },
  });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('checkout-anvil', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'production');
  payer = (await anvil.accounts())[0]!;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
test.after.always(async () => {
  await browser?.close();
  await gw?.close();
  await anvil?.stop();
});

const scan = () => scanOnce(gw, 'eth', 'ethereum');

test('the page of a production invoice follows a real ETH payment to paid without a reload and returns to return_url', async (t) => {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `anvil-${Date.now()}`, coin: 'eth', amount_crypto: '0.25', return_url: RETURN_URL },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const inv = created.body;
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  t.teardown(() => context.close());
  await context.route('https://shop.example.com/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Thank you</title><p>Thank you</p>' }),
  );
  const page = await context.newPage();
  const navigations: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations.push(frame.url());
  });
  await page.goto(inv.checkout_url);
  t.is(await page.locator('.sandbox-banner').count(), 0, 'no sandbox banner on a real-chain invoice');
  t.is(await page.locator('button[data-simulation]').count(), 0);
  t.is((await fetch(`${inv.checkout_url}/simulate/paid`, { method: 'POST', redirect: 'manual' })).status, 404, 'no simulations on a real-chain invoice');
  t.truthy(await page.getByText('ETH · Ethereum mainnet').count(), await page.locator('body').innerText());

  // The payer sends what the page shows, to the address the page shows.
  const address = await page.inputValue('#address');
  const amount = await page.inputValue('#amount');
  await anvil.sendEth(payer, address, parseEther(amount));
  await scan();
  await page.locator('#status-title', { hasText: 'Payment seen' }).waitFor();
  t.truthy(await page.getByText(`1 of ${inv.confirmation_threshold} confirmations.`).count());
  await anvil.mine(inv.confirmation_threshold - 1);
  await scan();
  t.is((await signedFetch(gw.url, `/api/v1/invoices/${inv.id}`, project)).body.status, 'paid');
  await page.locator('#status-title', { hasText: 'Paid' }).waitFor();
  await page.waitForURL(RETURN_URL, { timeout: 15_000 });
  t.deepEqual(navigations, [inv.checkout_url, RETURN_URL], 'no reload between opening the page and the return');
});

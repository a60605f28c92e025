import test from 'ava';
import type { Page } from 'playwright-core';
import { Receiver } from '@gw/testing';
import { DashboardWorld, expectAccessible, watchCsp } from './harness.js';
import { WOO_PERMISSIONS } from '@gw/plugin-btcpay/testing';

// BTCPay's API-key authorization flow in a real browser (Debian's chromium through playwright-core)
// on a gateway started as a user starts it, with the btcpay plugin turned on: a shop plugin opens
// `/btcpay/api-keys/authorize`, the operator signs in with the e-mailed code, lands back on the
// request, approves it, and the shop's redirect URL (a local server here) receives the key as
// BTCPay posts it, a key that then works on the Greenfield API.

let world: DashboardWorld;
let shop: Receiver;
let projectId: string;

test.before(async () => {
  world = await DashboardWorld.start({ GW__plugins__btcpay__enabled: 'true' });
  shop = await Receiver.start();
  shop.reply = () => ({ status: 200, body: '{"received":true}' });
  projectId = (await world.cli('project', 'create', '--name', 'Woo shop', '--kind', 'testnet')).project.id;
});
test.after.always(async () => {
  await shop?.close();
  await world?.close();
});

/** The authorize URL as BTCPay's PHP client builds it for WooCommerce (`ApiKey::getAuthorizeUrl`); `loose`: strict=false and a server permission too. */
function authorizeUrl(redirect: string, loose = false): string {
  const query = [
    ...[...WOO_PERMISSIONS, ...(loose ? ['btcpay.server.canmodifyserversettings'] : [])].map((p) => `permissions=${encodeURIComponent(p)}`),
    'applicationName=WooCommerce',
    `strict=${!loose}`,
    'selectiveStores=true',
    `redirect=${encodeURIComponent(redirect)}`,
  ];
  return `${world.url}/btcpay/api-keys/authorize?${query.join('&')}`;
}

/** `GET /btcpay/api/v1/api-keys/current` with `Authorization: token <key>`, as the PHP client checks its key. */
async function currentKey(apiKey: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${world.url}/btcpay/api/v1/api-keys/current`, { headers: { Authorization: `token ${apiKey}`, Accept: 'application/json' } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** Signs in on the sign-in page `page` shows, with the code from the SMTP sink; axe checks each step. */
async function signInHere(t: Parameters<typeof expectAccessible>[0], page: Page, email: string): Promise<void> {
  await expectAccessible(t, page);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('One-time code').waitFor();
  await expectAccessible(t, page);
  await page.getByLabel('One-time code').fill(await world.sink.nextCode(email));
  await Promise.all([page.waitForURL((u) => u.pathname === '/dashboard/btcpay-keys/authorize'), page.getByRole('button', { name: 'Sign in' }).click()]);
}

test.serial(
  'opened signed out, the request survives the sign-in; approved for one store, the shop receives apiKey, permissions[] and userId by POST and the key works on the Greenfield API; every page axe-clean, no CSP violation',
  async (t) => {
    const admin = await world.invite('btcpay-admin@example.test', 'admin');
    const context = await world.context(t);
    const page = await context.newPage();
    const cspViolations = watchCsp(page);
    const callback = `${shop.url}/?btcpay-settings-callback`;

    await page.goto(authorizeUrl(callback));
    t.is(new URL(page.url()).pathname, '/dashboard/sign-in');
    await signInHere(t, page, admin.email);

    await page.getByRole('heading', { level: 1, name: 'Authorize WooCommerce' }).waitFor();
    const main = await page.locator('main').innerText();
    for (const words of ['View invoices', 'Create invoices', 'Modify invoices', 'View the stores', 'Create refunds to be claimed', 'Manage webhooks'])
      t.true(main.includes(words), words);
    t.true(main.includes(callback), 'the page says where the key goes');
    await expectAccessible(t, page);
    await page.getByLabel('Store (project) the key applies to').selectOption(projectId);
    await page.getByRole('button', { name: 'Approve' }).click();

    await page.getByRole('heading', { level: 1, name: 'Approved: hand the key to WooCommerce' }).waitFor();
    await expectAccessible(t, page);
    const host = new URL(shop.url).host;
    await Promise.all([page.waitForURL((u) => u.href.startsWith(shop.url)), page.getByRole('button', { name: `Continue to ${host}` }).click()]);

    const received = shop.requests.filter((r) => r.path === '/?btcpay-settings-callback');
    t.is(received.length, 1);
    t.regex(String(received[0]!.headers['content-type']), /^application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(received[0]!.body);
    const apiKey = form.get('apiKey')!;
    t.regex(apiKey, /^[0-9a-f]{40}$/);
    t.deepEqual(
      form.getAll('permissions[]'),
      WOO_PERMISSIONS.map((p) => `${p}:${projectId}`),
    );
    t.is(form.get('userId'), admin.id);

    const current = await currentKey(apiKey);
    t.is(current.status, 200);
    t.is(current.body.apiKey, apiKey);
    t.deepEqual([...current.body.permissions].sort(), WOO_PERMISSIONS.map((p) => `${p}:${projectId}`).sort());

    // The keys page lists it; revoking it there ends it on the API at once.
    await page.goto(`${world.url}/dashboard/btcpay-keys`);
    await page.getByRole('heading', { level: 1, name: 'BTCPay keys' }).waitFor();
    t.true((await page.locator('main').innerText()).includes(admin.email));
    await expectAccessible(t, page);
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL((u) => u.pathname === '/dashboard/btcpay-keys'), page.getByRole('button', { name: 'Revoke' }).click()]);
    await page.getByText('is revoked').first().waitFor();
    t.is((await currentKey(apiKey)).status, 401);
    t.deepEqual(cspViolations, []);
  },
);

test.serial(
  'a request that lets the operator untick permissions (a server one marked not available) is axe-clean; deny creates no key and leads back to the shop without one',
  async (t) => {
    const admin = await world.invite('btcpay-denier@example.test', 'admin');
    const { page, cspViolations } = await world.signedIn(t, admin.email);
    const before = (await world.cli('btcpay-key', 'list')).keys.length;
    const callback = `${shop.url}/denied?btcpay-settings-callback`;
    await page.goto(authorizeUrl(callback, true));
    await page.getByRole('heading', { level: 1, name: 'Authorize WooCommerce' }).waitFor();
    t.true(await page.getByRole('checkbox', { name: /View invoices/ }).isChecked());
    t.is(await page.getByRole('checkbox', { name: /Manage the server/ }).count(), 0);
    t.regex(await page.locator('main').innerText(), /Manage the server.*Not available on this gateway: not granted/);
    await expectAccessible(t, page);
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByRole('heading', { level: 1, name: 'Request denied' }).waitFor();
    await expectAccessible(t, page);
    await Promise.all([page.waitForURL((u) => u.href.startsWith(shop.url)), page.getByRole('link', { name: 'Back to WooCommerce' }).click()]);
    const landed = shop.requests.filter((r) => r.path === '/denied?btcpay-settings-callback');
    t.is(landed.length, 1);
    t.is(landed[0]!.body, '', 'no key goes back');
    t.is((await world.cli('btcpay-key', 'list')).keys.length, before);
    t.deepEqual(cspViolations, []);
  },
);

test.serial('a request with an unknown permission or a redirect that is not http(s) is answered with a clear, accessible page', async (t) => {
  const context = await world.context(t);
  const page = await context.newPage();
  const unknown = await page.goto(`${world.url}/btcpay/api-keys/authorize?permissions=btcpay.store.canfly&applicationName=Shop`);
  t.is(unknown?.status(), 400);
  await page.getByRole('heading', { level: 1, name: 'This request for an API key cannot be used' }).waitFor();
  t.regex(await page.locator('main').innerText(), /"btcpay\.store\.canfly" is not a BTCPay permission/);
  await expectAccessible(t, page);
  const script = await page.goto(
    `${world.url}/btcpay/api-keys/authorize?permissions=btcpay.store.canviewinvoices&redirect=${encodeURIComponent('javascript:alert(1)')}`,
  );
  t.is(script?.status(), 400);
  t.regex(await page.locator('main').innerText(), /is not an http or https URL/);
  await expectAccessible(t, page);
});

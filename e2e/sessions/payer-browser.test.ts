import test from 'ava';
import jsQRModule from 'jsqr';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { CLI_ACTOR } from '@gw/kernel';
import { waitFor } from '@gw/kernel/testing';
import { LANGUAGE_TAGS, LOCALES } from '@gw/plugin-checkout';
import { sessionsPlugin } from '@gw/plugin-sessions';
import { watchCsp } from '@gw/testing';
import { axeViolations, axeViolationsWithoutScripts } from '../axe.js';
import { mailingBrowserSandbox } from '../mailing-browser-sandbox.js';

// The payer's pages of sessions and payment links in a real browser (Debian's chromium driven by
// playwright-core): the flow (a EUR-priced session, USDT on TRON picked, its QR code
// decoded, a switch to ETH, the simulated payment turning the page paid, the receipt mailed to a
// local SMTP sink and its link opening the receipt), the link's QR code decoded to its URL, the
// pages without JavaScript, and axe-core on every page in every language.
// jsqr is CommonJS with a `default` export: one function either way it is loaded.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as unknown as typeof import('jsqr').default;

const f = mailingBrowserSandbox(test, [sessionsPlugin], { 'plugins.rates.fixedFiat': { EUR: '1.08' } });

let seq = 0;
async function createSession(body: Record<string, unknown> = {}): Promise<any> {
  const res = await f.c.call('POST', '/checkout-sessions', { price_currency: 'EUR', price_amount: '23.50', external_id: `browser-${++seq}`, ...body });
  if (res.status !== 201) throw new Error(`session: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
async function createLink(body: Record<string, unknown> = {}): Promise<any> {
  const res = await f.c.call('POST', '/payment-links', { price_currency: 'EUR', min_amount: '5', max_amount: '500', ...body });
  if (res.status !== 201) throw new Error(`link: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
const getSession = async (id: string) => (await f.c.call('GET', `/checkout-sessions/${id}`)).body;
const getInvoice = async (id: string) => (await f.c.call('GET', `/invoices/${id}`)).body;
const simulate = async (id: string, what: string) => {
  const res = await f.c.call('POST', `/invoices/${id}/simulate-${what}`, {});
  if (res.status !== 200) throw new Error(`simulate-${what}: ${res.status} ${JSON.stringify(res.body)}`);
};
/** A sandbox payment of the invoice: seen, then confirmed. */
const pay = async (invoiceId: string) => {
  await simulate(invoiceId, 'detect');
  await simulate(invoiceId, 'paid');
};

/** A page in a fresh context (JavaScript as given) that records Content Security Policy violations. */
async function open(t: { teardown(fn: () => Promise<void>): void }, options: BrowserContextOptions = {}): Promise<{ page: Page; violations: string[] }> {
  const context = await f.browser.newContext(options);
  t.teardown(() => context.close());
  const page = await context.newPage();
  return { page, violations: watchCsp(page) };
}

/** Decodes the QR code `selector` shows from a screenshot of it. */
async function decodeQr(page: Page, selector = 'svg.qr'): Promise<string | undefined> {
  const png = PNG.sync.read(await page.locator(selector).first().screenshot());
  return jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data;
}

/** Clicks and waits for the page the click leads to (form posts answer 303) to load. */
async function clickAndLoad(page: Page, click: () => Promise<void>): Promise<void> {
  await Promise.all([page.waitForEvent('load'), click()]);
}

test('a EUR session: the payer picks USDT on TRON (its QR code decodes to the payment URI), switches to ETH, pays, and the receipt mail’s link opens the receipt', async (t) => {
  const email = `payer-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const created = await createSession({ allowed_coins: ['usdt_trc20', 'eth', 'btc'], line_items: [{ name: 'Notebook', quantity: 2, unit_amount: '11.75' }] });
  const { page, violations } = await open(t);
  await page.goto(created.url);
  t.regex((await page.locator('h1').textContent()) ?? '', /23\.50/);
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'session page');
  await page.getByLabel('E-mail address (optional)').fill(email);
  await clickAndLoad(page, () => page.getByRole('button', { name: 'Save the address' }).click());
  t.truthy(await page.locator('#email-known').count());

  await clickAndLoad(page, () => page.locator('button[data-coin="usdt_trc20"]').click());
  t.regex(new URL(page.url()).pathname, /^\/checkout\//);
  const tron = await getInvoice((await getSession(created.id)).invoice_id);
  t.is(tron.coin, 'usdt_trc20');
  t.is(await decodeQr(page), tron.payment_uri);
  t.truthy(await page.locator('#session-order').getByText('Notebook').count(), 'the order on the checkout page');
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'checkout page with the order panel');

  await clickAndLoad(page, () => page.getByRole('link', { name: 'Pay with another coin' }).click());
  t.is(new URL(page.url()).pathname, new URL(created.url).pathname);
  t.is(await page.locator('body').getAttribute('data-state'), 'picked');
  await clickAndLoad(page, () => page.locator('button[data-coin="eth"]').click());
  const switched = await getSession(created.id);
  t.is(switched.coin, 'eth');
  t.is((await getInvoice(tron.id)).status, 'cancelled');
  const eth = await getInvoice(switched.invoice_id);
  t.is(await decodeQr(page), eth.payment_uri);

  await pay(eth.id);
  await page.locator('#status-title', { hasText: 'Paid' }).waitFor({ timeout: 20_000 });
  const done = await getSession(created.id);
  t.is(done.status, 'completed');

  const message = await waitFor(async () => f.sink.messages.find((m) => m.to.includes(email)), 30_000, 'the receipt e-mail');
  const raw = message.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  t.regex(raw, /^Subject: Your receipt from /m);
  const link = new RegExp(`${done.receipt_url}\\?lang=en`).exec(raw)?.[0];
  t.truthy(link, 'the receipt link');
  await page.goto(link!);
  t.is(await page.locator('h1').textContent(), 'Receipt');
  t.truthy(await page.getByText('Notebook').count());
  t.truthy(await page.locator('.txid').count());
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'receipt');
  await page.emulateMedia({ media: 'print' });
  t.false(await page.locator('nav.languages').isVisible(), 'printed without the language switch');
  t.true(await page.locator('.sandbox-banner').isVisible(), 'a sandbox receipt says so on paper');
  t.deepEqual(violations, []);
});

test('without JavaScript: a link’s page opens a session for an entered amount, the coin is picked by a form; the link’s QR code decodes to its URL', async (t) => {
  const link = await createLink({ allowed_coins: ['btc', 'eth'] });
  const { page, violations } = await open(t, { javaScriptEnabled: false });
  await page.goto(link.url);
  t.is(await decodeQr(page), link.url, 'the code on the page');
  await page.getByLabel('Amount (EUR)').fill('4');
  await clickAndLoad(page, () => page.getByRole('button', { name: 'Continue' }).click());
  t.is(await page.locator('[data-error-code]').getAttribute('data-error-code'), 'amount_out_of_range');
  t.deepEqual(await axeViolationsWithoutScripts(page), [], 'refused amount');
  await page.getByLabel('Amount (EUR)').fill('42.10');
  await clickAndLoad(page, () => page.getByRole('button', { name: 'Continue' }).click());
  t.regex(new URL(page.url()).pathname, /^\/pay\/[0-9a-f]{32}$/);
  t.regex((await page.locator('h1').textContent()) ?? '', /42\.10/);
  await clickAndLoad(page, () => page.locator('button[data-coin="btc"]').click());
  t.regex(new URL(page.url()).pathname, /^\/checkout\//);
  t.deepEqual(violations, []);

  const svg = await open(t);
  await svg.page.goto(link.qr_url);
  t.is(await decodeQr(svg.page, 'svg'), link.url, 'the code at qr_url');
});

/** One page of every kind and state (sessions open, picked, expired and paid, the receipt, links open and inactive, a checkout page with the order, a 404), made once. */
let everyPage: Promise<string[]> | undefined;
function pagesOfEveryKind(): Promise<string[]> {
  everyPage ??= (async () => {
    const open_ = await createSession({
      allowed_coins: ['usdt_trc20', 'eth'],
      line_items: [
        { name: 'Tea', quantity: 2, unit_amount: '7.50' },
        { name: 'Cake', quantity: 1, unit_amount: '8.50' },
      ],
      description: 'Order 9',
    });
    const picked = await createSession({ allowed_coins: ['eth', 'btc'] });
    const expired = await createSession();
    const paid = await createSession({ allowed_coins: ['btc'] });
    const cradle = f.gw.kernel.cradle;
    const token = (url: string) => new URL(url).pathname.split('/').pop()!;
    await cradle.sessionsCheckout.pick(token(picked.url), 'eth', CLI_ACTOR);
    await cradle.sessionsCheckout.expire(f.c.projectId, expired.id, CLI_ACTOR);
    await cradle.sessionsCheckout.pick(token(paid.url), 'btc', CLI_ACTOR);
    await pay((await getSession(paid.id)).invoice_id);
    const receipt = (await getSession(paid.id)).receipt_url;
    const link = await createLink({ ask_email: true, description: 'Donation' });
    const inactive = await createLink({
      price_amount: '10',
      min_amount: undefined,
      max_amount: undefined,
      line_items: [{ name: 'Ticket', quantity: 2, unit_amount: '5' }],
    });
    await f.c.call('POST', `/payment-links/${inactive.id}/deactivate`, {});
    const checkout = (await getInvoice((await getSession(picked.id)).invoice_id)).checkout_url;
    return [open_.url, picked.url, expired.url, paid.url, receipt, link.url, inactive.url, checkout, `${f.gw.url}/pay/${'0'.repeat(32)}`];
  })();
  return everyPage;
}

// One test per language (each within the test timeout), one after the other (one browser page at a time).
for (const locale of LOCALES) {
  test.serial(`axe-core finds nothing on any page of sessions and links in ${locale}, in every state`, async (t) => {
    const pages = await pagesOfEveryKind();
    // The pages run no script of their own (the checkout page's live status aside), so axe runs in them directly.
    const { page } = await open(t);
    for (const url of pages) {
      await page.goto(`${url}?lang=${locale}`);
      t.is(await page.getAttribute('html', 'lang'), LANGUAGE_TAGS[locale], url);
      t.deepEqual(await axeViolations(page), [], `${locale} ${url}`);
    }
  });
}

test('the payer’s language comes from Accept-Language, and the switch keeps the page', async (t) => {
  const created = await createSession();
  const { page } = await open(t, { locale: 'zh-CN', javaScriptEnabled: false });
  await page.goto(created.url);
  t.is(await page.getAttribute('html', 'lang'), 'zh-Hans');
  t.is(await page.locator('#coins-title').textContent(), '选择付款方式');
  await clickAndLoad(page, () => page.getByRole('link', { name: 'Türkçe' }).click());
  t.is(await page.getAttribute('html', 'lang'), 'tr');
  t.is(new URL(page.url()).pathname, new URL(created.url).pathname);
  t.is(await page.locator('#coins-title').textContent(), 'Nasıl ödeyeceğinizi seçin');
});

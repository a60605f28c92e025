import test from 'ava';
import jsQRModule from 'jsqr';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { PNG } from 'pngjs';
import type { TestKernel } from '@gw/kernel/testing';
import { createSandboxInvoice } from '@gw/plugin-sandbox/testing';
import { sandboxClient, startCheckoutKernel, type SandboxClient } from './helpers.js';
import { CHROMIUM } from '@gw/testing';
import { CHECKOUT_MESSAGES, SHELL_MESSAGES } from '@gw/plugin-checkout';
import { LOCALE_NAMES, LOCALES } from '@gw/plugin-checkout/contract';
import { axeViolations } from '../axe.js';

// The checkout page in a real browser: Debian's chromium driven by playwright-core, the QR code
// decoded from a screenshot with jsQR, accessibility checked with axe-core.
// jsqr is CommonJS with a `default` export: one function either way it is loaded.
const jsQR = ((jsQRModule as unknown as { default?: unknown }).default ?? jsQRModule) as unknown as typeof import('jsqr').default;
const PHONE: BrowserContextOptions = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

let gw: TestKernel;
let browser: Browser;
let c: SandboxClient;
test.before(async () => {
  // Streams end every 5 s here, so every test also runs across the browser's reconnections.
  gw = await startCheckoutKernel({ 'plugins.checkout.returnDelaySeconds': 1, 'plugins.checkout.streamMaxSeconds': 5 });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  c = await sandboxClient(gw);
});
test.after.always(async () => {
  await browser?.close();
  await gw?.close();
});

let seq = 0;
async function invoice(body: Record<string, unknown> = {}): Promise<any> {
  return createSandboxInvoice(c, { external_id: `browser-${++seq}`, coin: 'btc', amount_crypto: '0.0125', ...body });
}
const simulate = async (id: string, what: string, body?: unknown) => {
  const res = await c.call('POST', `/invoices/${id}/simulate-${what}`, body);
  if (res.status !== 200) throw new Error(`simulate-${what}: ${res.status} ${JSON.stringify(res.body)}`);
};

/** A page in a fresh context that records every Content Security Policy violation. */
async function open(t: { teardown(fn: () => Promise<void>): void }, options: BrowserContextOptions = {}): Promise<{ page: Page; violations: string[] }> {
  const context = await browser.newContext({ ...PHONE, ...options });
  t.teardown(() => context.close());
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return { page, violations };
}

/** Decodes the QR code on the page from a screenshot of it. */
async function decodeQr(page: Page): Promise<string | undefined> {
  const png = PNG.sync.read(await screenshotAcrossReloads(page, 'svg.qr'));
  return jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height)?.data;
}

/**
 * A screenshot of `selector`. A page without JavaScript reloads itself (its noscript refresh, every
 * 15 s); on a slow machine a screenshot can start before a reload and find its element gone after
 * it. It is then taken again from the reloaded page, at most twice.
 */
async function screenshotAcrossReloads(page: Page, selector: string): Promise<Buffer> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await page.locator(selector).screenshot();
    } catch (error) {
      if (attempt === 3 || !/not attached to the DOM/.test(String(error))) throw error;
      await page.waitForLoadState();
    }
  }
}

test('a sandbox invoice page shows amount, address and a QR code that decodes to payment_uri; it passes axe in light and dark', async (t) => {
  const inv = await invoice();
  for (const colorScheme of ['light', 'dark'] as const) {
    const { page, violations } = await open(t, { colorScheme });
    await page.goto(inv.checkout_url);
    t.is(await page.inputValue('#amount'), '0.0125');
    t.is(await page.inputValue('#address'), inv.address);
    t.is(await decodeQr(page), inv.payment_uri);
    t.truthy(await page.getByText('Sandbox: this is a test payment').count());
    t.regex((await page.locator('#countdown').textContent()) ?? '', /^\d+ min \d{2} s$/);
    t.deepEqual(await axeViolations(page), [], colorScheme);
    t.deepEqual(violations, []);
  }
});

test('a simulated payment moves the open page to paid without a reload, then the page returns to return_url', async (t) => {
  const inv = await invoice({ return_url: `${gw.url}/healthz?back=1` });
  const { page, violations } = await open(t);
  const navigations: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) navigations.push(frame.url());
  });
  // The return is held until the page was seen paid: the old document stays shown while its
  // navigation waits, so the check cannot race the page's own redirect.
  let release!: () => void;
  const seenPaid = new Promise<void>((resolve) => (release = resolve));
  await page.route(`${gw.url}/healthz?back=1`, async (route) => {
    await seenPaid;
    await route.continue();
  });
  await page.goto(inv.checkout_url);
  await simulate(inv.id, 'detect');
  await page.locator('#status-title', { hasText: 'Payment seen, waiting for confirmations' }).waitFor();
  await simulate(inv.id, 'paid');
  await page.locator('#status-title', { hasText: 'Paid' }).waitFor();
  release();
  await page.waitForURL(`${gw.url}/healthz?back=1`, { timeout: 15_000 });
  t.deepEqual(navigations, [inv.checkout_url, `${gw.url}/healthz?back=1`], 'no reload between opening the page and the return');
  t.deepEqual(violations, []);
});

test('the page buttons: a partial payment shows the remainder; expiry shows expired and hides the address', async (t) => {
  const inv = await invoice();
  const { page } = await open(t);
  await page.goto(inv.checkout_url);
  await page.getByRole('button', { name: 'Detect payment' }).click();
  await page.locator('#status-title', { hasText: 'Payment seen' }).waitFor();
  await page.getByRole('button', { name: 'Pay too little' }).click();
  await page.locator('#status-title', { hasText: 'Paid too little' }).waitFor();
  t.is(await page.inputValue('#remainder'), '0.00625');
  t.truthy(await page.getByText('Send the remaining 0.00625 BTC to the same address.').count());

  const other = await invoice();
  await page.goto(other.checkout_url);
  await simulate(other.id, 'expire');
  await page.locator('#status-title', { hasText: 'Expired' }).waitFor();
  t.false(await page.locator('#address').isVisible());
  t.false(await page.locator('svg.qr').isVisible());
});

test('after a partial payment the QR code and the wallet link ask for the remainder, live and after a reload', async (t) => {
  const inv = await invoice({ amount_crypto: '24.5', coin: 'usdc_erc20' });
  const { page } = await open(t);
  await page.goto(inv.checkout_url);
  t.is(await decodeQr(page), inv.payment_uri);
  t.is(await page.getAttribute('#wallet-link', 'href'), inv.payment_uri);
  await simulate(inv.id, 'detect');
  await page.locator('#status-title', { hasText: 'Payment seen' }).waitFor();
  t.is(await page.locator('svg.qr').count(), 0, 'nothing to scan while a payment covering the amount confirms');
  await simulate(inv.id, 'event', {
    eventType: 'invoice.partial',
    amountUnits: '12250000',
    confirmations: 1,
    blockHeight: 1,
    expectedCurrentStatus: 'detected',
  });
  await page.locator('#status-title', { hasText: 'Paid too little' }).waitFor();
  t.truthy(await page.getByText('Send the remaining 12.25 USDC to the same address.').count());
  // The same request for 12.25 USDC (12250000 base units) as the invoice's URI for 24.5.
  const remainder = inv.payment_uri.replace('uint256=24500000', 'uint256=12250000');
  t.not(remainder, inv.payment_uri, `the URI carries the amount: ${inv.payment_uri}`);
  t.is(await decodeQr(page), remainder, 'the live update replaced the QR code');
  t.is(await page.getAttribute('#wallet-link', 'href'), remainder);
  t.truthy(await page.getByText('The code and the wallet link ask for 12.25 USDC.').count());
  await page.reload();
  t.is(await decodeQr(page), remainder, 'the server renders it too');
  t.deepEqual(await axeViolations(page), []);
});

test('at 320 px the page fits the screen: nothing overflows sideways, before and after a partial payment', async (t) => {
  const inv = await invoice({ coin: 'eth', amount_crypto: undefined, amount_usd: 50, cancel_url: `${gw.url}/healthz?cancelled=1` });
  t.true((inv.amount_crypto.split('.')[1] ?? '').length <= 8, inv.amount_crypto);
  for (const locale of LOCALES) {
    const { page } = await open(t, { viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 });
    await page.goto(`${inv.checkout_url}?lang=${locale}`);
    const overflow = await page.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth);
    t.true(overflow <= 320, `${locale}: scrollWidth ${overflow}`);
    t.truthy(await decodeQr(page), `${locale}: the QR code still decodes at 320 px`);
  }
  const usdc = await invoice({ amount_crypto: '1234567.123456', coin: 'usdc_erc20' });
  await simulate(usdc.id, 'detect');
  await simulate(usdc.id, 'event', { eventType: 'invoice.partial', amountUnits: '1', confirmations: 1, blockHeight: 1, expectedCurrentStatus: 'detected' });
  const { page } = await open(t, { viewport: { width: 320, height: 640 }, deviceScaleFactor: 1 });
  await page.goto(usdc.checkout_url);
  await page.locator('#status-title', { hasText: 'Paid too little' }).waitFor();
  const overflow = await page.evaluate(() => (globalThis as any).document.scrollingElement.scrollWidth);
  t.true(overflow <= 320, `partial: scrollWidth ${overflow}`);
});

test('a page in German, chosen by Accept-Language, with a switch back to English', async (t) => {
  const inv = await invoice({ amount_crypto: '1234.5' });
  const { page } = await open(t, { locale: 'de-DE', extraHTTPHeaders: { 'Accept-Language': 'de-DE,de;q=0.9' } });
  await page.goto(inv.checkout_url);
  t.is(await page.getAttribute('html', 'lang'), 'de');
  t.truthy(await page.getByRole('heading', { level: 1, name: '1.234,5 BTC bezahlen' }).count());
  t.is(await page.inputValue('#amount'), '1234.5');
  t.regex((await page.locator('#countdown').textContent()) ?? '', /^\d+ Min\. \d{2} s$/);
  await simulate(inv.id, 'detect');
  await page.locator('#status-title', { hasText: 'Zahlung gesehen' }).waitFor();
  await page.getByRole('link', { name: 'English' }).click();
  t.truthy(await page.getByRole('heading', { level: 1, name: 'Pay 1,234.5 BTC' }).count());
  t.deepEqual(await axeViolations(page), []);
});

// Serial: its sixteen axe runs would otherwise slow the concurrent tests that watch a one-second return.
test.serial(
  'axe passes in every language, waiting in light and paid too little in dark; the switch is a labelled navigation naming each language in itself',
  async (t) => {
    const inv = await invoice({ coin: 'eth', amount_crypto: undefined, amount_usd: 1234.5, cancel_url: `${gw.url}/healthz?cancelled=1` });
    const partial = await invoice({ amount_crypto: '1234.5' });
    await simulate(partial.id, 'detect');
    await simulate(partial.id, 'event', {
      eventType: 'invoice.partial',
      amountUnits: '1',
      confirmations: 1,
      blockHeight: 1,
      expectedCurrentStatus: 'detected',
    });
    for (const locale of LOCALES) {
      const { page, violations } = await open(t);
      await page.goto(`${inv.checkout_url}?lang=${locale}`);
      const nav = page.getByRole('navigation', { name: SHELL_MESSAGES.t(locale, 'language'), exact: true });
      t.is(await nav.count(), 1, `${locale}: one navigation named in the language`);
      t.deepEqual(
        await nav.getByRole('link').allTextContents(),
        LOCALES.map((l) => LOCALE_NAMES[l]),
      );
      t.is(await nav.locator('a[aria-current="true"]').textContent(), LOCALE_NAMES[locale], `${locale}: the current language is marked`);
      await page.getByRole('link', { name: CHECKOUT_MESSAGES.t(locale, 'open_wallet') }).waitFor();
      t.deepEqual(await axeViolations(page), [], `${locale}, waiting, light`);
      const dark = await open(t, { colorScheme: 'dark' });
      await dark.page.goto(`${partial.checkout_url}?lang=${locale}`);
      await dark.page.locator('#status-title', { hasText: CHECKOUT_MESSAGES.t(locale, 'status_partial') }).waitFor();
      t.deepEqual(await axeViolations(dark.page), [], `${locale}, paid too little, dark`);
      t.deepEqual([...violations, ...dark.violations], [], `${locale}: CSP`);
    }
  },
);

test('without JavaScript the page works: it refreshes itself, shows the status on reload, and the sandbox buttons post forms', async (t) => {
  const inv = await invoice({ cancel_url: `${gw.url}/healthz?cancelled=1` });
  const { page } = await open(t, { javaScriptEnabled: false });
  await page.goto(inv.checkout_url);
  t.is(await page.locator('noscript').count(), 1);
  t.truthy(await page.getByText('Waiting for your payment').count());
  t.is(await decodeQr(page), inv.payment_uri);
  await page.getByRole('button', { name: 'Detect payment' }).click();
  await page.waitForURL(/\?lang=en$/);
  t.truthy(await page.getByText('Payment seen, waiting for confirmations').count());
  await simulate(inv.id, 'paid');
  await page.getByRole('link', { name: 'Refresh status' }).click();
  await page.locator('#status-title', { hasText: 'Paid' }).waitFor();
  t.is(await page.getByRole('link', { name: /Cancel and return/ }).count(), 0, 'no cancel link once paid');
});

test('a page left open past the lifetime of its stream reconnects and still follows the invoice', async (t) => {
  const inv = await invoice();
  const { page } = await open(t);
  await page.goto(inv.checkout_url);
  await page.evaluate(() => ((globalThis as any).notReloaded = true));
  // Longer than streamMaxSeconds (5 s here) plus the browser's 3 s retry: at least one reconnection.
  await page.waitForTimeout(9_000);
  await simulate(inv.id, 'detect');
  await page.locator('#status-title', { hasText: 'Payment seen' }).waitFor();
  t.true(await page.evaluate(() => (globalThis as any).notReloaded === true));
});

test('without EventSource the script follows the status by long polling', async (t) => {
  const inv = await invoice();
  const { page } = await open(t);
  await page.addInitScript(() => {
    delete (globalThis as any).EventSource;
  });
  const polls: string[] = [];
  page.on('request', (request) => {
    if (request.url().includes('/status?')) polls.push(request.url());
  });
  await page.goto(inv.checkout_url);
  await page.evaluate(() => ((globalThis as any).notReloaded = true));
  await simulate(inv.id, 'detect');
  await page.locator('#status-title', { hasText: 'Payment seen' }).waitFor();
  t.true(await page.evaluate(() => (globalThis as any).notReloaded === true));
  t.true(polls.length > 0, 'the page long-polled');
  t.true(polls.every((url) => url.includes('known=')));
});

/**
 * The negative control of the browser tests' Content Security Policy checks: they assert that no
 * violation was seen (`watchCsp` of the dashboard harness; the checkout browser test reads the
 * console the same way). Here a violation is made on purpose, on a real checkout page, and must be
 * seen: an inline script and an inline style injected into the DOM are refused by the page's policy,
 * and the watcher records each. Without this, a watcher that saw nothing (a changed console text, a
 * policy that never applied) would let every "no violation" assertion pass.
 */
import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { CHROMIUM, watchCsp } from '@gw/testing';
import { sandboxClient, startCheckoutKernel } from './helpers.js';

let gw: TestKernel;
let browser: Browser;
test.before(async () => {
  gw = await startCheckoutKernel();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
test.after.always(async () => {
  await browser?.close();
  await gw?.close();
});

test('the CSP watcher sees a violation: an injected inline script and inline style are refused and recorded', async (t) => {
  const c = await sandboxClient(gw);
  const created = await c.call('POST', '/invoices', { external_id: 'csp-control', coin: 'btc', amount_crypto: '0.0125' });
  t.is(created.status, 201);
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  const violations = watchCsp(page);
  const response = await page.goto(created.body.checkout_url);
  t.regex(response!.headers()['content-security-policy'] ?? '', /script-src/);
  t.deepEqual(violations, [], 'the page itself violates nothing');
  // Added through the DOM (playwright's own evaluate is exempt from the page's policy, the element
  // it adds is not).
  await page.evaluate(() => {
    const document = (globalThis as any).document;
    const script = document.createElement('script');
    script.textContent = 'globalThis.cspControlRan = true;';
    document.body.append(script);
    const style = document.createElement('style');
    style.textContent = 'body { outline: 1px solid red; }';
    document.head.append(style);
  });
  // Mutation checked: with watchCsp matching 'Content-Security-Policy' (not the console's wording),
  // this fails.
  await waitFor(
    async () => violations.some((v) => /script/i.test(v)) && violations.some((v) => /style/i.test(v)),
    10_000,
    `script and style violations (seen: ${JSON.stringify(violations)})`,
  );
  t.false(await page.evaluate(() => (globalThis as { cspControlRan?: boolean }).cspControlRan === true), 'the inline script ran');
});

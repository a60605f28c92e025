/**
 * The API reference page (`/api/v1/docs`) in a real browser under its Content-Security-Policy
 * (issue 33 finding 19): Swagger UI renders the document from the gateway's own assets, and the
 * policy refuses nothing it needs, while a script or image from another host is refused.
 */
import test from 'ava';
import { chromium, type Browser } from 'playwright-core';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';

const CHROMIUM = process.env['GW_CHROMIUM'] ?? '/usr/bin/chromium';

let gw: TestKernel;
let browser: Browser;
test.before(async () => {
  gw = await startTestKernel({ plugins: [] });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
test.after.always(async () => {
  await browser?.close();
  await gw?.close();
});

test('the reference page renders under a CSP that allows only the gateway itself', async (t) => {
  const page = await browser.newPage();
  t.teardown(() => page.close());
  const refusals: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) refusals.push(message.text());
  });
  const response = await page.goto(`${gw.url}/api/v1/docs`);
  const csp = response?.headers()['content-security-policy'] ?? '';
  for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"])
    t.true(csp.includes(directive), directive);
  // The document's operations are listed: the bundle ran and fetched /api/v1/openapi.json.
  await page.locator('.opblock-summary-path', { hasText: '/healthz' }).first().waitFor({ timeout: 30_000 });
  t.deepEqual(refusals, [], 'nothing the page needs is refused');
  // Something injected into the page cannot load from elsewhere.
  const blocked = await page.evaluate(
    () =>
      new Promise<string>((resolve) => {
        // The test's TypeScript has no DOM types: the page's document, untyped.
        const document = (globalThis as any).document;
        document.addEventListener('securitypolicyviolation', (event: { violatedDirective: string }) => resolve(event.violatedDirective), { once: true });
        const script = document.createElement('script');
        script.src = 'https://cdn.example.invalid/x.js';
        document.body.append(script);
      }),
  );
  t.is(blocked, 'script-src-elem');
});

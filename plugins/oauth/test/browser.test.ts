import { createHash, randomBytes } from 'node:crypto';
import test, { type ExecutionContext } from 'ava';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { TestKernel } from '@gw/kernel/testing';
import { authorizationUrl, Callback, MailSink, inviteUser, registerClient, startOAuthKernel } from './helpers.js';
import { CHROMIUM, stopAll } from '@gw/testing';

// The sign-in and consent pages in a real browser: Debian's chromium driven by playwright-core.

let gw: TestKernel, sink: MailSink, callback: Callback, browser: Browser;

test.before(async () => {
  sink = await MailSink.start();
  callback = await Callback.start();
  gw = await startOAuthKernel(sink);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
});
test.after.always(() => stopAll(browser, gw, sink, callback));

async function setUp(label: string) {
  const clientId = await registerClient(gw.url, {
    client_name: `Browser ${label}`,
    redirect_uris: [callback.url],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  });
  const user = await inviteUser(gw, label);
  const verifier = randomBytes(32).toString('base64url');
  const state = `state-${label}`;
  const url = authorizationUrl(gw.url, {
    client_id: clientId,
    redirect_uri: callback.url,
    scope: 'invoices:read webhooks:read',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    resource: `${gw.url}/api/mcp/transport`,
  });
  return { clientId, user, verifier, state, url };
}

/** A page in a fresh browser context, closed when the test ends. */
async function freshPage(t: ExecutionContext, options?: BrowserContextOptions): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  t.teardown(() => context.close());
  return { context, page: await context.newPage() };
}

/** Signs `email` in on the sign-in page with the e-mailed code, up to the consent page. */
async function signInToConsent(page: Page, email: string): Promise<void> {
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('One-time code').fill(await sink.nextCode(email));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
}

/** Answers the consent page with `button`; where the browser lands (the client's callback). */
async function answerConsent(page: Page, button: 'Allow' | 'Deny'): Promise<URL> {
  await Promise.all([page.waitForURL((u) => u.href.startsWith(callback.url)), page.getByRole('button', { name: button }).click()]);
  return new URL(page.url());
}

test('sign in with the e-mailed code, see the scopes on the consent page, approve: the browser lands on the callback with code and state', async (t) => {
  const flow = await setUp('approve');
  const { context, page } = await freshPage(t);
  await page.goto(flow.url.href);
  t.is(await page.title(), 'Sign in');
  t.is(await page.getAttribute('html', 'lang'), 'en');
  t.truthy(await page.getByRole('heading', { level: 1, name: 'Sign in' }).count());
  t.regex(await page.locator('main').innerText(), /Browser approve/);
  await page.getByLabel('E-mail address').fill(flow.user.email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await page.getByLabel('One-time code').waitFor();
  const code = await sink.nextCode(flow.user.email);
  // A wrong code first: the error is announced and tied to the field.
  await page.getByLabel('One-time code').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').waitFor();
  t.is(await page.getByLabel('One-time code').getAttribute('aria-describedby'), 'form-error');
  await page.getByLabel('One-time code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Allow access?' }).waitFor();
  const consent = await page.locator('main').innerText();
  t.regex(consent, /invoices:read/);
  t.regex(consent, /webhooks:read/);
  t.notRegex(consent, /projects:read/);
  t.regex(consent, new RegExp(flow.user.email.replace(/[.+]/g, '\\$&')));
  const cookies = await context.cookies(`${gw.url}/oauth/authorize`);
  t.like(
    cookies.find((c) => c.name === 'gw_oauth_session'),
    { httpOnly: true, sameSite: 'Lax', path: '/oauth', secure: false },
  );
  const landed = await answerConsent(page, 'Allow');
  t.is(landed.searchParams.get('state'), flow.state);
  t.regex(landed.searchParams.get('code') ?? '', /^oac_[0-9A-Za-z]{32}$/);
  t.is(landed.searchParams.get('iss'), gw.url);

  // The code works at the token endpoint.
  const token = await fetch(`${gw.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: landed.searchParams.get('code')!,
      redirect_uri: callback.url,
      client_id: flow.clientId,
      code_verifier: flow.verifier,
      resource: `${gw.url}/api/mcp/transport`,
    }),
  });
  t.is(token.status, 200);
  t.like(await token.json(), { scope: 'invoices:read webhooks:read', token_type: 'Bearer', expires_in: 3600 });

  // Same browser, same client, consent on record: straight back to the callback, no page.
  const again = await context.newPage();
  await again.goto(flow.url.href);
  await again.waitForURL((u) => u.href.startsWith(callback.url));
  t.regex(new URL(again.url()).searchParams.get('code') ?? '', /^oac_/);
});

test('deny on the consent page: the browser lands on the callback with error=access_denied and the state', async (t) => {
  const flow = await setUp('deny');
  const { page } = await freshPage(t);
  await page.goto(flow.url.href);
  await signInToConsent(page, flow.user.email);
  const landed = await answerConsent(page, 'Deny');
  t.is(landed.searchParams.get('error'), 'access_denied');
  t.is(landed.searchParams.get('state'), flow.state);
  t.is(landed.searchParams.get('code'), null);
});

test('the pages work without JavaScript and refuse to be framed', async (t) => {
  const flow = await setUp('nojs');
  const { page } = await freshPage(t, { javaScriptEnabled: false });
  const response = await page.goto(flow.url.href);
  t.is(response?.headers()['x-frame-options'], 'DENY');
  // Forms post only to the gateway, and their redirects reach only this request's client (issue
  // 33 finding 19); the approval below still lands on the callback through that policy.
  t.regex(response?.headers()['content-security-policy'] ?? '', new RegExp(`form-action 'self' ${new URL(callback.url).origin.replace(/[.]/g, '\\.')};`));
  await signInToConsent(page, flow.user.email);
  t.regex((await answerConsent(page, 'Allow')).searchParams.get('code') ?? '', /^oac_/);
});

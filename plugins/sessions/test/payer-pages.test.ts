import test from 'ava';
import { CLI_ACTOR, sql, sqlQuery } from '@gw/kernel';
import { freePort, type TestKernel } from '@gw/kernel/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { SANDBOX_PLUGINS, sandboxClient, startSandboxKernel, type SandboxClient } from '@gw/plugin-sandbox/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import type { CreateLinkInput, CreateSessionInput, PayerSession } from '../src/contract.js';
import { sessionsPlugin } from '../src/index.js';
import { paidInSandbox, simulated } from './helpers.js';

// The payer's pages over HTTP (no browser): every state and refusal of the session's page, the
// link's page and the receipt, their CSRF refusal, statuses and escaping. The browser, axe-core,
// QR decoding and the mails are in e2e/sessions/payer-browser.test.ts.

let gw: TestKernel;
let c: SandboxClient;
test.before(async () => {
  const port = await freePort();
  gw = await startSandboxKernel({ 'http.port': port, 'http.baseUrl': `http://127.0.0.1:${port}` }, [
    ...SANDBOX_PLUGINS,
    watchersPlugin,
    checkoutPlugin,
    oauthPlugin,
    sessionsPlugin,
  ]);
  c = await sandboxClient(gw);
});
test.after.always(async () => {
  await gw?.close();
});

const project = () => ({ id: c.projectId, kind: 'sandbox' as const });
let seq = 0;
async function session(input: Partial<CreateSessionInput> = {}, on: SandboxClient = c) {
  const { session } = await gw.kernel.cradle.sessionsCheckout.create(
    { id: on.projectId, kind: 'sandbox' },
    { price_currency: 'USD', price_amount: '25', allowed_coins: ['usdt_trc20', 'eth', 'btc'], external_id: `pages-${++seq}`, ...input },
    CLI_ACTOR,
  );
  return session;
}
async function link(input: Partial<CreateLinkInput> = {}) {
  const { link } = await gw.kernel.cradle.sessionsLinks.create(project(), { price_currency: 'USD', allowed_coins: ['eth', 'btc'], ...input }, CLI_ACTOR);
  return link;
}
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;
const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });

/** A form of a page as a browser sends it: the page's GET gives the cookie and the form's token. */
async function formOf(pageUrl: string): Promise<(action: string, fields: Record<string, string>, headers?: Record<string, string>) => Promise<Response>> {
  const shown = await get(pageUrl);
  const cookie = shown.headers.get('set-cookie')!.split(';')[0]!;
  const csrf = /name="csrf" value="([^"]+)"/.exec(await shown.text())![1]!;
  return (action, fields, headers = {}) =>
    fetch(new URL(action, pageUrl), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ csrf, ...fields }).toString(),
    });
}
const errorCode = (body: string) => /data-error-code="([a-z_]+)"/.exec(body)?.[1];
const simulate = (invoiceId: string, what: string, body?: unknown) => simulated(c, invoiceId, what, body);
const pay = (invoiceId: string) => paidInSandbox(c, invoiceId);
const byToken = async (url: string): Promise<PayerSession> => (await gw.kernel.cradle.sessionsCheckout.byToken(tokenOf(url)))!;

test('an open session’s page lists the allowed coins under the checkout’s CSP; unknown and malformed tokens get the same plain 404', async (t) => {
  const s = await session();
  t.regex(s.url, new RegExp(`^${gw.url}/pay/[0-9a-f]{32}$`));
  const res = await get(s.url, { 'Accept-Language': 'en-GB,en;q=0.8' });
  t.is(res.status, 200);
  const csp = res.headers.get('content-security-policy')!;
  t.true(csp.includes("script-src 'self'"));
  t.false(csp.includes('unsafe-inline'));
  t.is(res.headers.get('cache-control'), 'no-store');
  t.regex(res.headers.get('set-cookie') ?? '', /^gw_payer_form=[A-Za-z0-9_-]{22}; path=\/pay\/[0-9a-f]{32}; samesite=strict; httponly/);
  const body = await res.text();
  for (const coin of ['usdt_trc20', 'eth', 'btc']) t.true(body.includes(`name="coin" value="${coin}"`), coin);
  t.false(body.includes('value="ton"'), 'only the allowed coins');
  t.true(body.includes('data-state="open"'));
  t.false(/<script|style="/.test(body), 'no script, no inline style');
  const css = /href="(\/pay-assets\/sessions\.css\?v=[0-9a-f]+)"/.exec(body)![1]!;
  t.is((await get(`${gw.url}${css}`)).status, 200);

  const unknown = await get(`${gw.url}/pay/${'0'.repeat(32)}`);
  const malformed = await get(`${gw.url}/pay/%3Cscript%3E`);
  t.is(unknown.status, 404);
  t.is(malformed.status, 404);
  t.is(await unknown.text(), await malformed.text());
  t.is((await get(`${gw.url}/l/${'0'.repeat(32)}`)).status, 404);
  t.is((await get(`${gw.url}/l/${'0'.repeat(32)}/qr.svg`)).status, 404);
  t.is((await get(`${gw.url}/receipts/${'0'.repeat(32)}`)).status, 404);
});

test('a pick without the page’s cookie is refused (403) and allocates nothing; a pick goes on to the invoice’s checkout page, whose panel shows the order and links back', async (t) => {
  const s = await session({ line_items: [{ name: 'Green tea', quantity: 2, unit_amount: '12.5' }], description: 'Order 42' });
  const forged = await fetch(`${s.url}/coin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ coin: 'eth', csrf: 'A'.repeat(22) }).toString(),
  });
  t.is(forged.status, 403);
  t.is(errorCode(await forged.text()), 'form_expired');
  t.is((await byToken(s.url)).session.invoice_id, null, 'no invoice');

  const post = await formOf(s.url);
  const picked = await post(`${s.url}/coin?lang=de`, { coin: 'usdt_trc20' });
  t.is(picked.status, 303);
  const location = picked.headers.get('location')!;
  t.regex(location, /\/checkout\/[A-Za-z0-9_-]+\?lang=de$/);
  const now = await byToken(s.url);
  t.is(now.session.coin, 'usdt_trc20');
  t.truthy(now.session.invoice_id);

  const page = await (await get(`${s.url}?lang=de`)).text();
  t.true(page.includes('data-state="picked"'));
  t.true(page.includes(`href="${location}"`), 'the checkout page, in the page’s language');
  t.regex(page, /value="usdt_trc20" data-coin="usdt_trc20" aria-current="true"/);

  const checkout = await (await get(new URL(location, gw.url).toString())).text();
  t.true(checkout.includes('id="session-order"'), 'the sessions panel');
  t.true(checkout.includes('Green tea'));
  t.true(checkout.includes('Order 42'));
  t.true(checkout.includes(`id="session-switch" href="/pay/${tokenOf(s.url)}?lang=de"`));
});

test('switching coins cancels the unpaid invoice; once a payment is on its way, switching is refused (409) on the page', async (t) => {
  const s = await session();
  const post = await formOf(s.url);
  t.is((await post(`${s.url}/coin`, { coin: 'usdt_trc20' })).status, 303);
  const first = (await byToken(s.url)).session.invoice_id!;
  const switched = await post(`${s.url}/coin`, { coin: 'eth' });
  t.is(switched.status, 303);
  const now = await byToken(s.url);
  t.is(now.session.coin, 'eth');
  t.not(now.session.invoice_id, first);
  t.is((await gw.kernel.cradle.invoicesService.getMany([first])).get(first)!.status, 'cancelled');

  await simulate(now.session.invoice_id!, 'detect');
  const refused = await post(`${s.url}/coin`, { coin: 'btc' });
  t.is(refused.status, 409);
  const body = await refused.text();
  t.is(errorCode(body), 'checkout_session_payment_in_progress');
  t.true(body.includes('role="alert"'));
  t.is((await byToken(s.url)).session.coin, 'eth');
});

test('a coin the session does not allow is 422 coin_not_allowed; a closed session refuses a pick with 409 checkout_session_closed, in the payer’s language', async (t) => {
  const s = await session({ allowed_coins: ['eth'] });
  const post = await formOf(s.url);
  const notAllowed = await post(`${s.url}/coin?lang=es`, { coin: 'btc' });
  t.is(notAllowed.status, 422);
  const body = await notAllowed.text();
  t.is(errorCode(body), 'coin_not_allowed');
  t.true(body.includes('Esta moneda no se puede usar para este pago.'));
  t.is((await post(`${s.url}/coin`, { coin: '<script>' })).status, 422);

  await gw.kernel.cradle.sessionsCheckout.expire(c.projectId, s.id, CLI_ACTOR);
  const page = await (await get(s.url)).text();
  t.true(page.includes('data-state="expired"'));
  t.false(page.includes('name="coin"'));
  const closed = await post(`${s.url}/coin?lang=tr`, { coin: 'eth' });
  t.is(closed.status, 409);
  const text = await closed.text();
  t.is(errorCode(text), 'checkout_session_closed');
  t.true(text.includes('Bu ödeme talebi kapandı'));
});

test('the e-mail form: an invalid address is 400 with what was typed kept; a valid one is saved, shown masked, with the payer’s language', async (t) => {
  const s = await session();
  const post = await formOf(s.url);
  const invalid = await post(`${s.url}/email?lang=pt`, { email: 'not an address' });
  t.is(invalid.status, 400);
  const body = await invalid.text();
  t.is(errorCode(body), 'email_invalid');
  t.true(body.includes('value="not an address"'));
  t.true(body.includes('aria-invalid="true"'));
  const saved = await post(`${s.url}/email?lang=pt`, { email: 'Payer@Example.com' });
  t.is(saved.status, 303);
  t.is(saved.headers.get('location'), `/pay/${tokenOf(s.url)}?lang=pt`);
  t.is((await byToken(s.url)).session.customer_email, 'payer@example.com');
  const page = await (await get(`${s.url}?lang=pt`)).text();
  t.true(page.includes('p•••@example.com'));
  t.false(page.includes('name="email"'));
  const [row] = await sqlQuery<{ locale: string }>(gw.kernel.cradle.db, sql`select locale from sessions_sessions where id = ${s.id}`);
  t.is(row?.locale, 'pt');
});

test('a link with an amount to enter: malformed (400) and out-of-range (422) amounts are refused on the page, a valid one opens a session', async (t) => {
  const l = await link({ min_amount: '5', max_amount: '500', ask_email: true });
  const res = await get(l.url);
  t.is(res.status, 200);
  const page = await res.text();
  t.true(page.includes('name="amount"'));
  t.true(page.includes('name="email"'));
  const post = await formOf(l.url);
  const malformed = await post(l.url, { amount: '12.5.0' });
  t.is(malformed.status, 400);
  t.is(errorCode(await malformed.text()), 'amount_invalid');
  const low = await post(`${l.url}?lang=de`, { amount: '4,99' });
  t.is(low.status, 422);
  const lowBody = await low.text();
  t.is(errorCode(lowBody), 'amount_out_of_range');
  t.true(lowBody.includes('value="4,99"'));
  t.true(lowBody.includes('Der Betrag muss zwischen'));
  const badEmail = await post(l.url, { amount: '10', email: 'nope' });
  t.is(badEmail.status, 400);
  t.is(errorCode(await badEmail.text()), 'email_invalid');

  const opened = await post(`${l.url}?lang=fr`, { amount: '12,50', email: 'buyer@example.com' });
  t.is(opened.status, 303);
  const location = opened.headers.get('location')!;
  t.regex(location, /^\/pay\/[0-9a-f]{32}\?lang=fr$/);
  const created = await byToken(new URL(location, gw.url).toString());
  t.is(created.session.price_amount, '12.50');
  t.is(created.session.payment_link_id, l.id);
  t.is(created.session.customer_email, 'buyer@example.com');
  t.true((await (await get(new URL(location, gw.url).toString())).text()).includes('data-state="open"'));
});

test('a used-up link (409 payment_link_used_up) and a deactivated one (409 payment_link_inactive) open no session; the QR code is an SVG of the link', async (t) => {
  const l = await link({ price_amount: '10', max_uses: 1, ask_email: false });
  const post = await formOf(l.url);
  const opened = await post(l.url, {});
  t.is(opened.status, 303);
  const first = await byToken(new URL(opened.headers.get('location')!, gw.url).toString());
  const pick = await formOf(first.session.url);
  t.is((await pick(`${first.session.url}/coin`, { coin: 'eth' })).status, 303);
  await pay((await byToken(first.session.url)).session.invoice_id!);
  t.is((await byToken(first.session.url)).session.status, 'completed');

  const usedUp = await post(l.url, {});
  t.is(usedUp.status, 409);
  t.is(errorCode(await usedUp.text()), 'payment_link_used_up');
  const shown = await (await get(l.url)).text();
  t.true(shown.includes('data-state="used_up"'));
  t.false(shown.includes('<form'));

  const other = await link({ price_amount: '10' });
  const otherPost = await formOf(other.url);
  await gw.kernel.cradle.sessionsLinks.deactivate(c.projectId, other.id, CLI_ACTOR);
  const inactive = await otherPost(other.url, {});
  t.is(inactive.status, 409);
  t.is(errorCode(await inactive.text()), 'payment_link_inactive');

  const qr = await get(l.qr_url);
  t.is(qr.status, 200);
  t.is(qr.headers.get('content-type'), 'image/svg+xml; charset=utf-8');
  t.regex(await qr.text(), /^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www.w3.org\/2000\/svg" role="img"/);
});

test('a paid session shows its receipt link; the receipt lists order, coin, amount and transaction, and prints without navigation', async (t) => {
  const s = await session({ line_items: [{ name: 'Mug', quantity: 1, unit_amount: '25' }] });
  const post = await formOf(s.url);
  t.is((await post(`${s.url}/coin`, { coin: 'btc' })).status, 303);
  const invoiceId = (await byToken(s.url)).session.invoice_id!;
  await pay(invoiceId);
  const done = await byToken(s.url);
  t.is(done.session.status, 'completed');
  t.regex(done.session.receipt_url!, new RegExp(`^${gw.url}/receipts/[0-9a-f]{32}$`));
  const page = await (await get(s.url)).text();
  t.true(page.includes('data-state="completed"'));
  t.true(page.includes(`href="${done.session.receipt_url}?lang=en"`));
  t.false(page.includes('<form'));
  const receipt = await get(done.session.receipt_url!);
  t.is(receipt.status, 200);
  const body = await receipt.text();
  const invoice = (await gw.kernel.cradle.invoicesService.getMany([invoiceId])).get(invoiceId)!;
  t.true(body.includes('Mug'));
  t.true(body.includes(invoice.transactions[0]!.tx_hash));
  t.true(body.includes(`${invoice.amount_crypto} BTC`));
  const css = await (await get(`${gw.url}${/href="(\/pay-assets\/sessions\.css\?v=[0-9a-f]+)"/.exec(body)![1]!}`)).text();
  t.true(css.includes('@media print'));
});

test('a hostile description, line name and project name are shown as text on every page', async (t) => {
  const hostile = '"><script>document.title="owned"</script><img src=x onerror=alert(1)>';
  const sandbox = await gw.kernel.cradle.sandboxProjects.provision({ name: hostile }, CLI_ACTOR);
  const on: SandboxClient = { ...c, projectId: sandbox.project.id, secret: sandbox.api_key.api_secret, sandbox };
  const s = await session({ description: hostile, line_items: [{ name: hostile, quantity: 1, unit_amount: '25' }] }, on);
  const { link: l } = await gw.kernel.cradle.sessionsLinks.create(
    { id: sandbox.project.id, kind: 'sandbox' },
    { price_currency: 'USD', price_amount: '5', description: hostile, line_items: [{ name: hostile, quantity: 1, unit_amount: '5' }] },
    CLI_ACTOR,
  );
  for (const url of [s.url, l.url]) {
    const body = await (await get(url)).text();
    t.false(body.includes('<script>'), url);
    t.false(body.includes('<img src=x'), url);
    t.true(body.includes('&lt;script&gt;document.title=&quot;owned&quot;&lt;/script&gt;'), url);
  }
});

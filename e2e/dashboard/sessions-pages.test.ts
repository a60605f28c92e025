import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { sessionsPlugin, PAYER_ACTOR } from '@gw/plugin-sessions';
import { axeViolations } from './harness.js';
import { MailSink, signedInPage, signedInUser, startDashboardKernel } from './kernel.js';

// The "Payment links" and "Checkout sessions" pages (contributed by the sessions plugin) over HTTP
// with signed-in sessions: every user sees links, sessions and their invoices; creating a link,
// deactivating it and expiring a session are for administrators (a member's POST is 403); bad
// input is an error page that writes nothing; a double-sent create form makes one link; partner
// text is escaped; axe-clean in Chromium.

const SCRIPT = '<script>window.__pwned = 1</script>';
const PARTNER = { actor: 'api_key:test', channel: 'rest' as const };

let gw: TestKernel;
let sink: MailSink;
let operator: string;
let projectId: string;
let linkId: string;
let sessionId: string;
let linkSessionId: string;
let invoiceId: string;

const links = () => `/dashboard/projects/${projectId}/payment-links`;
const sessions = () => `/dashboard/projects/${projectId}/checkout-sessions`;
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink, {}, [sessionsPlugin]);
  operator = (await gw.kernel.cradle.tenancyOperators.create('sessions-ops', CLI_ACTOR)).id;
  projectId = (await gw.kernel.cradle.sandboxProjects.provision({ name: 'shop', operator }, CLI_ACTOR)).project.id;
  const project = { id: projectId, kind: 'sandbox' as const };
  const link = (
    await gw.kernel.cradle.sessionsLinks.create(
      project,
      {
        price_currency: 'USD',
        price_amount: '20',
        allowed_coins: ['btc', 'eth'],
        description: `Ticket ${SCRIPT}`,
        line_items: [{ name: 'Seat', quantity: 2, unit_amount: '10' }],
        max_uses: 5,
        metadata: { note: SCRIPT },
      },
      PARTNER,
    )
  ).link;
  linkId = link.id;
  // A payer opens the link (a session without an invoice yet); the partner's session priced in ETH is picked (its invoice).
  const linkSession = (await gw.kernel.cradle.sessionsLinks.open(tokenOf(link.url), { email: 'payer@example.com' }, PAYER_ACTOR)).session;
  linkSessionId = linkSession.id;
  // That payer picks ETH, then switches to BTC: two invoices, the first cancelled.
  await gw.kernel.cradle.sessionsCheckout.pick(tokenOf(linkSession.url), 'eth', PAYER_ACTOR);
  await gw.kernel.cradle.sessionsCheckout.pick(tokenOf(linkSession.url), 'btc', PAYER_ACTOR);
  const partnerSession = (
    await gw.kernel.cradle.sessionsCheckout.create(project, { price_currency: 'eth', price_amount: '0.02', external_id: `order-9${SCRIPT}` }, PARTNER)
  ).session;
  sessionId = partnerSession.id;
  invoiceId = (await gw.kernel.cradle.sessionsCheckout.pick(tokenOf(partnerSession.url), 'eth', PAYER_ACTOR)).session.invoice_id!;
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

test.serial(
  'every user sees the links with their uses, URL and QR code; only administrators see the create form and the buttons; partner text is escaped',
  async (t) => {
    const member = await signedInUser(gw, sink, 'member', operator);
    const list = await member.client.get(links());
    t.is(list.status, 200, list.text.slice(0, 300));
    t.regex(list.text, new RegExp(`href="${links()}"`), 'in the navigation');
    t.regex(list.text, new RegExp(`href="${sessions()}"`), 'in the navigation');
    t.true(list.text.includes(linkId));
    t.true(list.text.includes('20.00 USD'));
    t.true(list.text.includes('0 / 5'), 'uses of max uses');
    t.false(list.text.includes(SCRIPT));
    t.true(list.text.includes('Ticket &lt;script&gt;'));
    t.false(list.text.includes(`method="post" action="${links()}"`), 'no create form for a member');
    t.false(list.text.includes('/deactivate"'));
    t.true(list.text.includes('read-only member'));

    const link = await gw.kernel.cradle.sessionsLinks.get(projectId, linkId);
    const detail = await member.client.get(`${links()}/${linkId}`);
    t.is(detail.status, 200);
    t.true(detail.text.includes(`value="${link.url}"`), 'the URL to copy');
    t.regex(detail.text, /<dt>Line items<\/dt><dd>2 × Seat at 10.00 USD<br><\/dd>/, 'the order lines in the link’s currency');
    t.true(detail.text.includes(`src="${new URL(link.qr_url).pathname}"`), 'the QR code from the gateway’s own origin');
    const qr = await fetch(`${gw.url}${new URL(link.qr_url).pathname}`);
    t.is(qr.status, 200, 'the image the page shows is served');
    t.regex(qr.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    t.true(detail.text.includes(`href="${sessions()}/${linkSessionId}"`), 'the sessions opened from the link');
    t.false(detail.text.includes(SCRIPT));
    t.false(detail.text.includes('/deactivate"'));

    const admin = await signedInUser(gw, sink, 'admin', operator);
    const full = await admin.client.get(links());
    t.true(full.text.includes(`method="post" action="${links()}"`));
    t.true(full.text.includes(`action="${links()}/${linkId}/deactivate"`));
    t.true(full.text.includes('name="coin_btc"'), 'a checkbox per coin the project can be paid in');
    t.false(/<script[^>]+src="https?:/.test(full.text), 'no script from a CDN');
    t.is((await member.client.get(`${links()}/01ARZ3NDEKTSV4RRFFQ69G5FAV`)).status, 404);
  },
);

test.serial('create payment link: administrators only, bad input is a 400 page that writes nothing, a double-sent form makes one link', async (t) => {
  const count = async () => (await gw.kernel.cradle.sessionsLinks.list({ projectId, limit: 200 })).items.length;
  const before = await count();
  const member = await signedInUser(gw, sink, 'member', operator);
  const form = {
    price_currency: 'EUR',
    min_amount: '5',
    max_amount: '50',
    coin_btc: 'on',
    coin_usdt_trc20: 'on',
    description: 'Tips',
    max_uses: '',
    ask_email: 'on',
  };
  t.is((await member.client.post(links(), { ...form, _csrf: member.csrf })).status, 403);
  const admin = await signedInUser(gw, sink, 'admin', operator);
  t.is((await admin.client.post(links(), form)).status, 403, 'no CSRF token');

  const unknown = await admin.client.post(links(), { ...form, _csrf: admin.csrf, price_currency: 'XYZ' });
  t.is(unknown.status, 400, unknown.text.slice(0, 300));
  t.true(unknown.text.includes('<code>validation_error</code>'));
  t.is((await admin.client.post(links(), { ...form, _csrf: admin.csrf, min_amount: 'five' })).status, 400);
  t.is((await admin.client.post(links(), { ...form, _csrf: admin.csrf, max_uses: '0' })).status, 400);
  const coin = await admin.client.post(links(), { ...form, _csrf: admin.csrf, coin_nocoin: 'on' });
  t.is(coin.status, 422, coin.text.slice(0, 300));
  t.true(coin.text.includes('<code>coin_not_allowed</code>'));
  t.is(await count(), before, 'nothing written');

  const sent = { ...form, _csrf: admin.csrf, request_key: 'form-nonce-0000000001' };
  const created = await admin.client.post(links(), sent);
  t.is(created.status, 303, created.text.slice(0, 300));
  const again = await admin.client.post(links(), sent);
  t.is(again.status, 303);
  t.is(again.location, created.location, 'the second send answers the same link');
  t.is(await count(), before + 1);
  const id = created.location!.split('/').pop()!;
  const link = await gw.kernel.cradle.sessionsLinks.get(projectId, id);
  t.like(link, { price_currency: 'EUR', price_amount: null, min_amount: '5.00', max_amount: '50.00', description: 'Tips', max_uses: null, ask_email: true });
  t.deepEqual(link.allowed_coins, ['btc', 'usdt_trc20']);
  const audit = await gw.kernel.cradle.audit.list({ projectIds: [projectId], target: `payment_link:${id}`, limit: 10 });
  t.true(audit.items.some((row) => row.channel === 'dashboard'));

  const shown = await admin.client.get(created.location!);
  t.true(shown.text.includes('Payment link created'), 'the notice names the new link');
  const noEmail = await admin.client.post(links(), { _csrf: admin.csrf, price_currency: 'USD', price_amount: '3' });
  t.is(noEmail.status, 303, noEmail.text.slice(0, 300));
  t.false((await gw.kernel.cradle.sessionsLinks.get(projectId, noEmail.location!.split('/').pop()!)).ask_email, 'an unchecked box asks for no e-mail');
});

test.serial('deactivate: administrators only; the link then opens no session', async (t) => {
  const member = await signedInUser(gw, sink, 'member', operator);
  t.is((await member.client.post(`${links()}/${linkId}/deactivate`, { _csrf: member.csrf })).status, 403);
  t.true((await gw.kernel.cradle.sessionsLinks.get(projectId, linkId)).active);
  const admin = await signedInUser(gw, sink, 'admin', operator);
  const done = await admin.client.post(`${links()}/${linkId}/deactivate`, { _csrf: admin.csrf });
  t.is(done.status, 303, done.text.slice(0, 300));
  const link = await gw.kernel.cradle.sessionsLinks.get(projectId, linkId);
  t.false(link.active);
  const page = await admin.client.get(`${links()}/${linkId}`);
  t.true(page.text.includes('deactivated'));
  t.false(page.text.includes('/deactivate"'), 'no button on a deactivated link');
  t.is((await admin.client.post(`${links()}/${linkId}/deactivate`, { _csrf: admin.csrf })).status, 303, 'deactivating again changes nothing');
  t.is((await gw.kernel.cradle.sessionsLinks.get(projectId, linkId)).deactivated_at_iso, link.deactivated_at_iso);
  const refused = await gw.kernel.cradle.sessionsLinks.open(tokenOf(link.url), {}, PAYER_ACTOR).catch((error: { code?: string }) => error.code);
  t.is(refused, 'payment_link_inactive');
  const filtered = await admin.client.get(`${links()}?active=no`);
  t.true(filtered.text.includes(linkId));
  t.false((await admin.client.get(`${links()}?active=yes`)).text.includes(`<code>${linkId}</code>`));
  t.is((await admin.client.get(`${links()}?active=maybe`)).status, 400);
});

test.serial('checkout sessions: filters, a session with its invoices linking to their pages, expire for administrators', async (t) => {
  const member = await signedInUser(gw, sink, 'member', operator);
  const list = await member.client.get(sessions());
  t.is(list.status, 200, list.text.slice(0, 300));
  t.true(list.text.includes(sessionId) && list.text.includes(linkSessionId));
  t.true(list.text.includes('order-9&lt;script&gt;'));
  t.false(list.text.includes(SCRIPT));
  const byLink = await member.client.get(`${sessions()}?payment_link_id=${linkId}`);
  t.true(byLink.text.includes(linkSessionId));
  t.false(byLink.text.includes(sessionId));
  t.true((await member.client.get(`${sessions()}?external_id=order-9${encodeURIComponent(SCRIPT)}`)).text.includes(sessionId));
  t.true((await member.client.get(`${sessions()}?status=completed`)).text.includes('No checkout session matches these filters.'));
  t.is((await member.client.get(`${sessions()}?status=done`)).status, 400);
  t.is((await member.client.get(`${sessions()}?payment_link_id=nope`)).status, 400);

  const fromLink = await member.client.get(`${sessions()}/${linkSessionId}`);
  t.is(fromLink.status, 200);
  t.true(fromLink.text.includes('payer@example.com'));
  t.true(fromLink.text.includes(`href="${links()}/${linkId}"`));
  const switched = await gw.kernel.cradle.sessionsCheckout.get(projectId, linkSessionId);
  t.deepEqual(
    switched.invoices.map((i) => [i.coin, i.status]),
    [
      ['eth', 'cancelled'],
      ['btc', 'pending'],
    ],
  );
  for (const invoice of switched.invoices) t.true(fromLink.text.includes(`href="/dashboard/projects/${projectId}/invoices/${invoice.invoice_id}"`));
  t.regex(fromLink.text, /<dt>Coin picked<\/dt><dd>btc<\/dd>/);
  t.regex(fromLink.text, /<dt>Line items<\/dt><dd>2 × Seat at 10.00 USD<br><\/dd>/, 'the link’s order lines');

  const detail = await member.client.get(`${sessions()}/${sessionId}`);
  t.is(detail.status, 200);
  t.true(detail.text.includes(`href="/dashboard/projects/${projectId}/invoices/${invoiceId}"`), 'the invoice links to its page');
  t.true(detail.text.includes('(current)'));
  t.regex(detail.text, /<dt>Line items<\/dt><dd>—<\/dd>/, 'no order lines');
  t.false(detail.text.includes(SCRIPT));
  t.false(detail.text.includes('/expire"'), 'no expire button for a member');
  t.is((await member.client.post(`${sessions()}/${sessionId}/expire`, { _csrf: member.csrf })).status, 403);
  t.is((await gw.kernel.cradle.sessionsCheckout.get(projectId, sessionId)).status, 'open');
  t.is((await member.client.get(`${sessions()}/01ARZ3NDEKTSV4RRFFQ69G5FAV`)).status, 404);
  const invoicePage = await member.client.get(`/dashboard/projects/${projectId}/invoices/${invoiceId}`);
  t.is(invoicePage.status, 200);
  t.true(invoicePage.text.includes(`<h2>Checkout session</h2>`), 'the invoice page names its session');
  t.true(invoicePage.text.includes(`href="${sessions()}/${sessionId}"`));

  const admin = await signedInUser(gw, sink, 'admin', operator);
  t.true((await admin.client.get(`${sessions()}/${sessionId}`)).text.includes(`action="${sessions()}/${sessionId}/expire"`));
  const expired = await admin.client.post(`${sessions()}/${sessionId}/expire`, { _csrf: admin.csrf });
  t.is(expired.status, 303, expired.text.slice(0, 300));
  t.is((await gw.kernel.cradle.sessionsCheckout.get(projectId, sessionId)).status, 'expired');
  t.is((await gw.kernel.cradle.invoicesService.get(projectId, invoiceId)).status, 'cancelled', 'the unpaid invoice is cancelled');
  const again = await admin.client.post(`${sessions()}/${sessionId}/expire`, { _csrf: admin.csrf });
  t.is(again.status, 409);
  t.true(again.text.includes('<code>checkout_session_closed</code>'));
});

test.serial('the pages are axe-clean in Chromium', async (t) => {
  const page = await signedInPage(t, gw, sink, operator, true);
  for (const path of [links(), `${links()}/${linkId}`, sessions(), `${sessions()}/${sessionId}`, `/dashboard/projects/${projectId}/invoices/${invoiceId}`]) {
    const answer = await page.goto(path);
    t.is(answer?.status(), 200, path);
    t.deepEqual(await axeViolations(page), [], `axe-core on ${path}`);
    t.is(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
  }
});

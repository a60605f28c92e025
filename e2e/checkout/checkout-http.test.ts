import test from 'ava';
import { CLI_ACTOR, newId, sql, sqlQuery } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { partnerUrl } from '@gw/plugin-invoices';
import { createSandboxInvoice } from '@gw/plugin-sandbox/testing';
import { eventReader, sandboxClient, startCheckoutKernel, type SandboxClient } from './helpers.js';
import { CHECKOUT_MESSAGES, logoType, STALE_SECONDS, StreamLimiter } from '@gw/plugin-checkout';
import { formatDecimal, LOCALES, type Locale } from '@gw/plugin-checkout/contract';

let gw: TestKernel;
test.before(async () => {
  gw = await startCheckoutKernel({
    'http.trustProxy': true,
    'plugins.checkout.streamsPerClient': 3,
    'plugins.checkout.longPollSeconds': 20,
    // Every chain of the build, so every wallet link is checked (ltc and base are off by default).
    'chains.enabled': ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'ltc', 'base', 'sol'],
  });
});
test.after.always(async () => {
  await gw?.close();
});

let seq = 0;
async function invoice(c: SandboxClient, body: Record<string, unknown> = {}): Promise<any> {
  return createSandboxInvoice(c, { external_id: `co-${++seq}`, coin: 'eth', amount_crypto: '1234.5', ...body });
}
const page = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers, redirect: 'manual' });

/** A sandbox button pressed as a browser does: the page's GET gives the cookie and the form's token. */
/** Opens the status stream of `inv`'s checkout as the payer at `ip` (behind the trusted proxy). */
function statusStreamOf(inv: { checkout_url: string }): (ip: string) => Promise<Response> {
  return (ip) => fetch(`${inv.checkout_url}/events`, { headers: { 'X-Forwarded-For': ip } });
}

async function pressButton(checkoutUrl: string, simulation: string, lang?: string): Promise<Response> {
  const shown = await page(checkoutUrl);
  const cookie = shown.headers.get('set-cookie')!.split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(await shown.text())![1]!;
  return fetch(`${checkoutUrl}/simulate/${simulation}${lang ? `?lang=${lang}` : ''}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: token }).toString(),
  });
}

test('every invoice response carries checkout_url with a random token; the page shows amount, network, address and a QR code under a strict CSP', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c, { return_url: 'https://shop.example/thanks?order=1', cancel_url: 'https://shop.example/cart' });
  t.regex(inv.checkout_url, new RegExp(`^${gw.url}/checkout/[A-Za-z0-9_-]{32}$`));
  t.false(inv.checkout_url.includes(inv.id), 'the token is not the invoice id');
  t.is(inv.return_url, 'https://shop.example/thanks?order=1');
  t.is(inv.cancel_url, 'https://shop.example/cart');
  const fetched = await c.call('GET', `/invoices/${inv.id}`);
  t.is(fetched.body.checkout_url, inv.checkout_url);
  const listed = await c.call('GET', `/invoices?external_id=${inv.external_id}`);
  t.is(listed.body.items[0].checkout_url, inv.checkout_url);
  const other = await invoice(c);
  t.not(other.checkout_url, inv.checkout_url);

  const res = await page(inv.checkout_url, { 'Accept-Language': 'en-GB,en;q=0.8' });
  t.is(res.status, 200);
  const csp = res.headers.get('content-security-policy')!;
  t.false(csp.includes('unsafe-inline'));
  t.true(csp.includes("script-src 'self'"));
  t.true(csp.includes("form-action 'self';"), 'the partner URLs are links, not form targets');
  t.is(res.headers.get('cache-control'), 'no-store');
  const body = await res.text();
  t.true(body.includes('value="1234.5"'), 'the exact machine amount is the copyable value');
  t.true(body.includes('1,234.5 ETH'), 'the amount is formatted for people');
  t.true(body.includes(`>${inv.address}</textarea>`));
  t.true(body.includes('<svg xmlns="http://www.w3.org/2000/svg" role="img"'), 'server-rendered QR code');
  t.true(body.includes(`id="wallet-link" href="${inv.payment_uri.replace(/&/g, '&amp;')}"`), 'the wallet link asks for the invoiced amount');
  t.true(body.includes('Sepolia'), 'the network is named');
  t.true(body.includes('Sandbox: this is a test payment'));
  t.true(body.includes('href="https://shop.example/cart"'));
  t.false(/<script>|<style>|style="/.test(body), 'no inline script or style');
  // Assets come from the gateway itself.
  const css = body.match(/href="(\/checkout\/assets\/checkout\.css\?v=[0-9a-f]+)"/)![1]!;
  const asset = await fetch(`${gw.url}${css}`);
  t.is(asset.status, 200);
  t.regex(asset.headers.get('cache-control')!, /immutable/);
});

test('the OpenAPI document shows the new invoice fields and hides the page routes', async (t) => {
  const doc = (await (await fetch(`${gw.url}/api/v1/openapi.json`)).json()) as any;
  const text = JSON.stringify(doc);
  t.true(text.includes('"checkout_url"'));
  t.true(text.includes('"return_url"'));
  t.true(text.includes('"cancel_url"'));
  t.false(Object.keys(doc.paths).some((path) => path.startsWith('/checkout')));
});

test('a TON invoice shows its payment token as the required comment, a token invoice its contract', async (t) => {
  const c = await sandboxClient(gw);
  const ton = await invoice(c, { coin: 'ton', amount_crypto: '2' });
  const tonPage = await (await page(ton.checkout_url)).text();
  t.true(tonPage.includes(`id="memo" readonly value="${ton.payment_token}"`));
  const usdt = await invoice(c, { coin: 'usdc_erc20', amount_crypto: '10' });
  const usdtPage = await (await page(usdt.checkout_url)).text();
  t.regex(usdtPage, /<code class="contract">0x[0-9a-fA-F]{40}<\/code>/);
});

test('unknown and malformed tokens get the same plain 404 page', async (t) => {
  const unknown = await page(`${gw.url}/checkout/${'A'.repeat(32)}`);
  const malformed = await page(`${gw.url}/checkout/%3Cscript%3E`);
  t.is(unknown.status, 404);
  t.is(malformed.status, 404);
  const [a, b] = [await unknown.text(), await malformed.text()];
  t.is(a, b);
  t.true(a.includes('There is no payment page at this address.'));
  t.false(a.includes('script>'));
  t.is((await page(`${gw.url}/checkout/${'A'.repeat(32)}/events`)).status, 404);
  t.is((await page(`${gw.url}/checkout/${'A'.repeat(32)}/status`)).status, 404);
});

test('return_url and cancel_url: https, or http to loopback outside production; other schemes are 400 validation_error', async (t) => {
  const c = await sandboxClient(gw);
  for (const [field, value] of [
    ['return_url', 'ftp://shop.example/x'],
    ['return_url', 'javascript:alert(1)'],
    ['cancel_url', 'http://shop.example/cart'],
    ['cancel_url', 'https://user:pw@shop.example/'],
    ['return_url', 'not a url'],
  ] as const) {
    const res = await c.call('POST', '/invoices', { external_id: `bad-${++seq}`, coin: 'eth', amount_crypto: '1', [field]: value });
    t.is(res.status, 400, `${field}=${value}`);
    t.is(res.body.error_code, 'validation_error');
    t.is(res.body.details.field, field);
  }
  t.is((await invoice(c, { return_url: 'http://127.0.0.1:3000/done' })).return_url, 'http://127.0.0.1:3000/done');
  t.is(partnerUrl('https://shop.example/ok', 'return_url', 'production'), 'https://shop.example/ok');
  for (const value of ['https://10.0.0.8/x', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://localhost/x', 'http://127.0.0.1/x', 'https://192.168.1.1/']) {
    const error = t.throws(() => partnerUrl(value, 'return_url', 'production')) as { code?: string };
    t.is(error.code, 'validation_error', value);
  }
});

test('partner text is escaped on the page: project name, branding display name and a hostile return_url', async (t) => {
  const named = await gw.kernel.cradle.sandboxProjects.provision({ name: '<script>alert("name")</script>' }, CLI_ACTOR);
  const res = await signedFetch(gw.url, '/api/v1/sandbox/invoices', {
    projectId: named.project.id,
    secret: named.api_key.api_secret,
    method: 'POST',
    body: { external_id: 'named-1', coin: 'eth', amount_crypto: '1' },
  });
  const namedPage = await (await page(res.body.checkout_url)).text();
  t.false(namedPage.includes('<script>alert'));
  t.true(namedPage.includes('Payment to &lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;'));

  const c = await sandboxClient(gw);
  await gw.kernel.cradle.checkoutBranding.set(c.projectId, { displayName: '<img src=x onerror=alert(1)>"Shop"', colour: '#0F766E' }, CLI_ACTOR);
  const inv = await invoice(c, { return_url: 'https://shop.example/"><script>alert(1)</script>' });
  const body = await (await page(inv.checkout_url)).text();
  t.false(body.includes('<img src=x'));
  t.true(body.includes('&lt;img src=x onerror=alert(1)&gt;&quot;Shop&quot;'));
  t.false(body.includes('<script>alert'));
  const brand = body.match(/href="(\/checkout\/brand\/[0-9a-f]{6}\.css)"/)![1]!;
  t.is(brand, '/checkout/brand/0f766e.css');
  const css = await fetch(`${gw.url}${brand}`);
  t.is(await css.text(), ':root{--accent:#0f766e;--on-accent:#ffffff}\n');
  t.regex(css.headers.get('cache-control')!, /immutable/, 'the colour is the name: the answer never changes');
  for (const bad of ['0F766E.css', '0f766e', 'x0f766e.css', '0f766e.css.map']) t.is((await fetch(`${gw.url}/checkout/brand/${bad}`)).status, 404, bad);
});

test('language: Accept-Language picks German, ?lang= switches; amounts formatted per locale', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const de = await page(inv.checkout_url, { 'Accept-Language': 'ja-JP,de;q=0.9,en;q=0.5' });
  t.is(de.headers.get('content-language'), 'de');
  t.is(de.headers.get('vary'), 'Accept-Language');
  const body = await de.text();
  t.true(body.includes('<html lang="de">'));
  t.true(body.includes('Warten auf Ihre Zahlung'));
  t.true(body.includes('1.234,5 ETH'));
  t.true(body.includes('value="1234.5"'));
  const en = await (await page(`${inv.checkout_url}?lang=en`, { 'Accept-Language': 'de' })).text();
  t.true(en.includes('Waiting for your payment'));
  t.is(formatDecimal('de', '1234567.000000000000000001'), '1.234.567,000000000000000001');
});

test('language: each of the eight languages by Accept-Language with a region, its texts, numbers and a switch that lists all eight', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c, { amount_crypto: undefined, amount_usd: 1234.5 });
  const tags: Readonly<Record<Locale, [header: string, lang: string]>> = {
    en: ['en-AU', 'en'],
    de: ['de-AT,de;q=0.9', 'de'],
    es: ['es-MX', 'es'],
    fr: ['fr-CA,fr;q=0.8', 'fr'],
    pt: ['pt-BR,pt;q=0.9,en;q=0.8', 'pt-BR'],
    it: ['it-CH', 'it'],
    tr: ['tr-TR', 'tr'],
    zh: ['zh-CN,zh;q=0.9', 'zh-Hans'],
  };
  for (const locale of LOCALES) {
    const [header, lang] = tags[locale];
    const res = await page(inv.checkout_url, { 'Accept-Language': header });
    t.is(res.headers.get('content-language'), lang, locale);
    const body = await res.text();
    t.true(body.includes(`<html lang="${lang}">`), locale);
    t.true(body.includes(`>${CHECKOUT_MESSAGES.t(locale, 'status_pending')}</h2>`), `${locale}: the status in the language`);
    const amount = formatDecimal(locale, inv.amount_crypto);
    t.true(body.includes(`<h1>${CHECKOUT_MESSAGES.t(locale, 'title', { amount, symbol: 'ETH' })}</h1>`), `${locale}: ${amount}`);
    t.true(body.includes(CHECKOUT_MESSAGES.t(locale, 'usd_value', { price: `${formatDecimal(locale, '1234.50')}\u00a0USD` })), `${locale}: the USD value`);
    const links = [...body.matchAll(/<li><a href="\/checkout\/[^"?]+\?lang=(\w+)" hreflang="([^"]+)" lang="[^"]+"( aria-current="true")?>/g)];
    t.deepEqual(
      links.map((m) => m[1]),
      [...LOCALES],
      `${locale}: the switch lists all eight`,
    );
    t.deepEqual(
      links.filter((m) => m[3]).map((m) => m[1]),
      [locale],
      `${locale}: the current one is marked`,
    );
  }
  const switched = await page(`${inv.checkout_url}?lang=tr`, { 'Accept-Language': 'zh-CN' });
  t.is(switched.headers.get('content-language'), 'tr', '?lang= wins over the header');
  t.true((await switched.text()).includes('Ödemeniz bekleniyor'));
});

test('every chain: the page links the payment URI as a labelled "Open in wallet" deep link in the chain’s scheme', async (t) => {
  const c = await sandboxClient(gw);
  const ADDRESS = '0x[0-9a-fA-F]{40}';
  const BASE58 = '[1-9A-HJ-NP-Za-km-z]{32,44}';
  const SOLANA_PAY_TEXTS = '(&label=[^&]+)?(&message=[^&]+)?';
  const expected: Readonly<Record<string, RegExp>> = {
    btc: /^bitcoin:tb1[0-9a-z]+\?amount=0\.5$/,
    ltc: /^litecoin:[0-9a-zA-Z]+\?amount=0\.5$/,
    eth: new RegExp(`^ethereum:${ADDRESS}@11155111\\?value=500000000000000000$`),
    usdc_erc20: new RegExp(`^ethereum:${ADDRESS}@11155111/transfer\\?address=${ADDRESS}&uint256=500000$`),
    pol: new RegExp(`^ethereum:${ADDRESS}@80002\\?value=500000000000000000$`),
    usdt_polygon: new RegExp(`^ethereum:${ADDRESS}@80002/transfer\\?address=${ADDRESS}&uint256=500000$`),
    bnb: new RegExp(`^ethereum:${ADDRESS}@97\\?value=500000000000000000$`),
    usdt_bep20: new RegExp(`^ethereum:${ADDRESS}@97/transfer\\?address=${ADDRESS}&uint256=\\d+$`),
    eth_base: new RegExp(`^ethereum:${ADDRESS}@84532\\?value=500000000000000000$`),
    usdc_base: new RegExp(`^ethereum:${ADDRESS}@84532/transfer\\?address=${ADDRESS}&uint256=500000$`),
    trx: /^tron:T[1-9A-HJ-NP-Za-km-z]{33}\?amount=0\.5$/,
    usdt_trc20: /^tron:T[1-9A-HJ-NP-Za-km-z]{33}\?token=T[1-9A-HJ-NP-Za-km-z]{33}&amount=0\.5$/,
    ton: /^ton:\/\/transfer\/[\w-]{48}\?amount=500000000&text=[\w-]+$/,
    usdt_ton: /^ton:\/\/transfer\/[\w-]{48}\?jetton=[\w:-]+&amount=500000&text=[\w-]+$/,
    ada: /^web\+cardano:addr_test1[0-9a-z]+\?amount=0\.5$/,
    // Solana Pay transfer requests: the merchant's address, a reference per invoice (issue 43).
    sol: new RegExp(`^solana:${BASE58}\\?amount=0\\.5&reference=${BASE58}${SOLANA_PAY_TEXTS}$`),
    usdc_sol: new RegExp(`^solana:${BASE58}\\?amount=0\\.5&spl-token=4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU&reference=${BASE58}${SOLANA_PAY_TEXTS}$`),
    usdt_sol: new RegExp(`^solana:${BASE58}\\?amount=0\\.5&spl-token=AUknh93CwqQMZp7YfHgGhQcuBU7QgmncJJyUkGEse6H&reference=${BASE58}${SOLANA_PAY_TEXTS}$`),
  };
  for (const [coin, pattern] of Object.entries(expected)) {
    const inv = await invoice(c, { coin, amount_crypto: '0.5' });
    t.regex(inv.payment_uri, pattern, coin);
    const body = await (await page(`${inv.checkout_url}?lang=fr`)).text();
    const link = /<a class="button" id="wallet-link" href="([^"]+)" aria-describedby="request-caption">([^<]+)<\/a>/.exec(body);
    t.is(link?.[1]?.replace(/&amp;/g, '&'), inv.payment_uri, `${coin}: the link is the payment URI`);
    t.is(link?.[2], 'Ouvrir dans le portefeuille', `${coin}: labelled in the page's language`);
    t.true(
      body.includes(`<figcaption id="request-caption">Le code et le lien vers le portefeuille demandent 0,5 `),
      `${coin}: described by the amount it asks for`,
    );
  }
});

test('the status stream sends the current status, then each change; a long poll waits for a change', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const res = await fetch(`${inv.checkout_url}/events?lang=en`, { headers: { 'X-Forwarded-For': '198.51.100.1' } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  const events = eventReader(res);
  const first = await events.next();
  t.is(first.status, 'pending');
  const poll = fetch(`${inv.checkout_url}/status?known=${encodeURIComponent(first.key)}`, { headers: { 'X-Forwarded-For': '198.51.100.2' } }).then(
    (r) => r.json() as Promise<any>,
  );
  t.is((await c.call('POST', `/invoices/${inv.id}/simulate-detect`)).status, 200);
  const detected = await events.next();
  t.is(detected.status, 'detected');
  t.true(detected.html.includes('Payment seen'));
  t.is((await poll).status, 'detected');
  const short = await pressButton(inv.checkout_url, 'partial');
  t.is(short.status, 303);
  t.false(short.headers.get('location')!.includes('sim_error'), short.headers.get('location')!);
  const partial = await events.next();
  t.is(partial.status, 'partial');
  t.true(partial.html.includes('Send the remaining 617.25 ETH to the same address.'), partial.html);
  await events.close();
});

test('the page form runs sandbox simulations and returns to the page; a refused one comes back with its error code', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const res = await pressButton(inv.checkout_url, 'detect', 'de');
  t.is(res.status, 303);
  t.true(res.headers.get('location')!.endsWith('?lang=de'));
  t.is((await c.call('GET', `/invoices/${inv.id}`)).body.status, 'detected');
  const pending = await invoice(c);
  const refused = await pressButton(pending.checkout_url, 'paid');
  t.is(refused.status, 303);
  t.regex(refused.headers.get('location')!, /sim_error=[a-z_]+$/);
  t.is((await fetch(`${inv.checkout_url}/simulate/reorg`, { method: 'POST', redirect: 'manual' })).status, 404);
});

test("a sandbox button runs only with the page's token in both its form and its cookie (issue 33 finding 19)", async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const shown = await page(inv.checkout_url);
  const setCookie = shown.headers.get('set-cookie') ?? '';
  t.regex(setCookie, /HttpOnly/i);
  t.regex(setCookie, /SameSite=Strict/i);
  t.regex(setCookie, new RegExp(`path=${new URL(inv.checkout_url).pathname}`, 'i'));
  const cookie = setCookie.split(';')[0]!;
  const token = /name="csrf" value="([^"]+)"/.exec(await shown.text())?.[1];
  t.truthy(token);
  t.is(cookie.split('=')[1], token);
  const post = (headers: Record<string, string>, body?: Record<string, string>) =>
    fetch(`${inv.checkout_url}/simulate/detect`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body ?? {}).toString(),
    });
  const forged = [
    await post({}), // a cross-site form: no cookie, no token
    await post({}, { csrf: token! }), // the token alone (read from a leaked page), without the cookie
    await post({ cookie }), // the cookie alone
    await post({ cookie }, { csrf: 'A'.repeat(22) }), // another token
    await post({ cookie, 'sec-fetch-site': 'cross-site' }, { csrf: token! }),
  ];
  t.deepEqual(
    forged.map((r) => r.status),
    [403, 403, 403, 403, 403],
  );
  t.is((await c.call('GET', `/invoices/${inv.id}`)).body.status, 'pending', 'nothing was simulated');
  // A second view of the page (another tab) keeps the token, so the first tab's forms still work.
  const again = await page(inv.checkout_url, { cookie });
  t.is(/name="csrf" value="([^"]+)"/.exec(await again.text())?.[1], token);
  const pressed = await post({ cookie, 'sec-fetch-site': 'same-origin' }, { csrf: token! });
  t.is(pressed.status, 303);
  t.is((await c.call('GET', `/invoices/${inv.id}`)).body.status, 'detected');
});

test('the page of an expired or settled invoice carries no address, QR code or payment URI (issue 33 finding 19)', async (t) => {
  const c = await sandboxClient(gw);
  const open = await invoice(c);
  const waiting = await (await page(open.checkout_url)).text();
  t.true(waiting.includes(open.address));
  t.true(waiting.includes('class="qr-figure"'));
  const expired = await invoice(c);
  t.is((await c.call('POST', `/invoices/${expired.id}/simulate-expire`)).status, 200);
  const paid = await invoice(c);
  t.is((await c.call('POST', `/invoices/${paid.id}/simulate-detect`)).status, 200);
  t.is((await c.call('POST', `/invoices/${paid.id}/simulate-paid`)).status, 200);
  for (const inv of [expired, paid]) {
    const html = await (await page(inv.checkout_url)).text();
    t.false(html.includes(inv.address), `${inv.id}: address`);
    t.false(html.includes(inv.payment_uri), `${inv.id}: payment URI`);
    t.false(html.includes('<svg'), `${inv.id}: QR code`);
    t.false(html.includes('id="address"'), `${inv.id}: address field`);
  }
});

test('status streams are limited per client address without affecting other payers', async (t) => {
  const open = statusStreamOf(await invoice(await sandboxClient(gw)));
  const held = [await open('203.0.113.9'), await open('203.0.113.9'), await open('203.0.113.9')];
  t.true(held.every((r) => r.status === 200));
  const refused = await open('203.0.113.9');
  t.is(refused.status, 429);
  const other = await open('203.0.113.10');
  t.is(other.status, 200);
  for (const r of [...held, other]) await r.body?.cancel();
  // Closed streams give their slots back.
  await waitFor(async () => (await gw.kernel.cradle.checkoutStreamLimiter.held('203.0.113.9')) === 0 || undefined, 5000, "the closed streams' slots");
  const again = await open('203.0.113.9');
  t.is(again.status, 200);
  await again.body?.cancel();
});

test('status streams of IPv6 clients count per /64, IPv4-mapped addresses as IPv4 (issue 33 finding 19)', async (t) => {
  const open = statusStreamOf(await invoice(await sandboxClient(gw)));
  const held = [await open('2001:db8:7:7::1'), await open('2001:db8:7:7::2'), await open('2001:db8:7:7:ffff::3')];
  t.true(held.every((r) => r.status === 200));
  t.is((await open('2001:db8:7:7:1234::9')).status, 429, 'another address of the same /64');
  const neighbour = await open('2001:db8:7:8::1');
  t.is(neighbour.status, 200, 'the next /64 is another client');
  const mapped = [await open('198.51.100.77'), await open('::ffff:198.51.100.77'), await open('198.51.100.77')];
  t.true(mapped.every((r) => r.status === 200));
  t.is((await open('::ffff:198.51.100.77')).status, 429, 'the mapped form is the same IPv4 client');
  for (const r of [...held, neighbour, ...mapped]) await r.body?.cancel();
  await waitFor(async () => (await gw.kernel.cradle.checkoutStreamLimiter.held('2001:db8:7:7::/64')) === 0 || undefined, 5000, "the closed streams' slots");
});

test('the stream limit holds over instances: streams open on one count on the other; an instance gone with streams open stops counting once its rows are stale', async (t) => {
  const second = await startCheckoutKernel({ 'http.trustProxy': true, 'plugins.checkout.streamsPerClient': 3 }, gw.database);
  t.teardown(() => second.close());
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const open = (kernel: TestKernel, ip: string) => fetch(`${inv.checkout_url.replace(gw.url, kernel.url)}/events`, { headers: { 'X-Forwarded-For': ip } });
  const ip = '198.51.100.7';
  const held = [await open(gw, ip), await open(second, ip), await open(gw, ip)];
  t.deepEqual(
    held.map((r) => r.status),
    [200, 200, 200],
  );
  for (const kernel of [gw, second]) {
    const refused = await open(kernel, ip);
    t.is(refused.status, 429);
    await refused.body?.cancel();
  }
  t.is(await second.kernel.cradle.checkoutStreamLimiter.held(ip), 3);
  // Three at once from a fresh address on both instances: the limit is exact under concurrency.
  const burst = await Promise.all([gw, second, gw, second, gw].map((kernel) => open(kernel, '198.51.100.8')));
  t.deepEqual(burst.map((r) => r.status).sort(), [200, 200, 200, 429, 429]);
  for (const r of burst) await r.body?.cancel();
  // A stream closed on one instance frees its slot on the other.
  await held[0]!.body?.cancel();
  await waitFor(async () => (await second.kernel.cradle.checkoutStreamLimiter.held(ip)) === 2 || undefined, 5000, "the closed stream's slot");
  const reopened = await open(second, ip);
  t.is(reopened.status, 200);
  for (const r of [...held.slice(1), reopened]) await r.body?.cancel();

  // Rows of an instance that died with three streams open, last refreshed past the stale age.
  const dead = '198.51.100.9';
  const { db, checkoutStreamLimiter } = gw.kernel.cradle;
  await sqlQuery(
    db,
    sql`insert into checkout_stream_slots (id, client, instance_id, seen_at)
        select id, ${dead}, ${newId()}, now() - make_interval(secs => ${STALE_SECONDS + 1}) from unnest(${[newId(), newId(), newId()]}::text[]) as id`,
  );
  t.is(await checkoutStreamLimiter.held(dead), 0);
  const live = await open(second, dead);
  t.is(live.status, 200);
  await checkoutStreamLimiter.refresh();
  t.deepEqual(
    await sqlQuery(db, sql`select count(*)::int as n from checkout_stream_slots where client = ${dead}`),
    [{ n: 1 }],
    'the refresh deleted the stale rows, not the live one',
  );
  await live.body?.cancel();
});

test('the stream limiter: a burst from one address takes exactly the limit; a refresh writes back rows another instance deleted as stale; closed, it takes nothing and gives its rows back', async (t) => {
  const { db, logger } = gw.kernel.cradle;
  const limiter = new StreamLimiter({ db, logger, perClient: 2 });
  const client = `limiter-${newId()}`;
  const burst = await Promise.all(Array.from({ length: 10 }, () => limiter.acquire(client)));
  const taken = burst.filter((release) => release !== undefined);
  t.is(taken.length, 2);
  t.is(await limiter.held(client), 2);
  // Another instance found the rows stale (this one could not reach the database) and deleted them.
  await sqlQuery(db, sql`delete from checkout_stream_slots where client = ${client}`);
  t.is(await limiter.held(client), 0);
  await limiter.refresh();
  t.is(await limiter.held(client), 2, 'the refresh wrote the open rows again');
  taken[0]!();
  await waitFor(async () => (await limiter.held(client)) === 1 || undefined, 5000, 'the released row');
  t.truthy(await limiter.acquire(client), 'a released slot is free again');
  await limiter.close();
  t.is(await limiter.held(client), 0, 'close gives every row back');
  t.is(await limiter.acquire(`limiter-${newId()}`), undefined, 'closed: nothing is taken');
});

test('a page on one instance follows a change written through another instance (LISTEN/NOTIFY)', async (t) => {
  const second = await startCheckoutKernel({}, gw.database);
  t.teardown(() => second.close());
  const c = await sandboxClient(gw);
  const inv = await invoice(c);
  const onSecond = inv.checkout_url.replace(gw.url, second.url);
  const events = eventReader(await fetch(`${onSecond}/events`));
  t.is((await events.next()).status, 'pending');
  t.is((await c.call('POST', `/invoices/${inv.id}/simulate-detect`)).status, 200);
  t.is((await events.next()).status, 'detected');
  await events.close();
});

test('branding: logos are PNG, JPEG, WebP or SVG of at most 64 KiB; colours #rrggbb', async (t) => {
  const c = await sandboxClient(gw);
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
  t.is(logoType(svg), 'image/svg+xml');
  t.is(logoType(Buffer.from('GIF89a')), undefined);
  t.is(
    logoType(Buffer.from('<?xml version="1.0"?>\n<!-- made by hand --> <!-- twice -->\n<svg>')),
    'image/svg+xml',
    'declaration and comments before the element',
  );
  t.is(logoType(Buffer.from('<svgx/>')), undefined);
  t.is(logoType(Buffer.from('<!-- never closed <svg>')), undefined);
  // Each raster format by its signature (a real 1×1 PNG; JPEG's SOI + APP0 and WebP's RIFF header).
  // Mutations checked: without the WebP line of logoType, or with the size limit doubled, this fails.
  const raster = {
    'image/png': Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'),
    'image/jpeg': Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(32)]),
    'image/webp': Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x1a, 0, 0, 0]), Buffer.from('WEBPVP8L'), Buffer.alloc(18)]),
  };
  for (const [type, bytes] of Object.entries(raster)) {
    t.is(logoType(bytes), type);
    const stored = await gw.kernel.cradle.checkoutBranding.set(c.projectId, { logo: bytes }, CLI_ACTOR);
    t.is(stored.logoDataUri, `data:${type};base64,${bytes.toString('base64')}`);
  }
  // 64 KiB exactly is accepted, one byte more is not (an SVG padded with a comment).
  const padded = (size: number) => {
    const open = '<svg xmlns="http://www.w3.org/2000/svg"><!--';
    const close = '--></svg>';
    return Buffer.from(open + 'x'.repeat(size - open.length - close.length) + close);
  };
  t.is(padded(65_536).length, 65_536);
  t.truthy((await gw.kernel.cradle.checkoutBranding.set(c.projectId, { logo: padded(65_536) }, CLI_ACTOR)).logoDataUri);
  await t.throwsAsync(gw.kernel.cradle.checkoutBranding.set(c.projectId, { logo: padded(65_537) }, CLI_ACTOR), { message: /larger than 65536 bytes/ });
  const set = await gw.kernel.cradle.checkoutBranding.set(c.projectId, { logo: svg, displayName: 'Acme' }, CLI_ACTOR);
  t.true(set.logoDataUri!.startsWith('data:image/svg+xml;base64,'));
  await t.throwsAsync(gw.kernel.cradle.checkoutBranding.set(c.projectId, { logo: Buffer.from('hello') }, CLI_ACTOR), { message: /PNG, JPEG, WebP or SVG/ });
  await t.throwsAsync(gw.kernel.cradle.checkoutBranding.set(c.projectId, { colour: 'red' }, CLI_ACTOR), { message: /#rrggbb/ });
  const inv = await invoice(c);
  const body = await (await page(inv.checkout_url)).text();
  t.true(body.includes('<img class="logo" src="data:image/svg+xml;base64,'));
  t.true(body.includes('Payment to Acme'));
});

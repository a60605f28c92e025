import test from 'ava';
import { html } from '@gw/kernel';
import { LOCALES } from './i18n.js';
import { CHECKOUT_ASSETS } from './payer-assets.js';
import { payerPage, payerPageHeaders } from './payer-page.js';

const branding = { displayName: 'Shop <&>', logoDataUri: 'data:image/png;base64,iVBORw0KGgo=', colour: '#1D4ED8' };

test('the shell: language, stylesheet, accent colour, logo, heading and an accessible language switch listing all eight', (t) => {
  const page = payerPage({
    title: 'Pay',
    locale: 'pt',
    body: html`<h1>Pay</h1>`,
    switchBase: '/pay/abc',
    branding,
    heading: 'Pagamento para Shop <&>',
    sandbox: true,
  });
  t.true(page.startsWith('<!doctype html>\n<html lang="pt-BR">'));
  t.true(page.includes('<title>Pay · Shop &lt;&amp;&gt;</title>'));
  t.true(page.includes(`<link rel="stylesheet" href="${CHECKOUT_ASSETS.url('checkout.css')}">`));
  t.true(page.includes('<link rel="stylesheet" href="/checkout/brand/1d4ed8.css">'));
  t.true(page.includes('<img class="logo" src="data:image/png;base64,iVBORw0KGgo=" alt="Shop &lt;&amp;&gt;">'));
  t.true(page.includes('<p class="pay-to">Pagamento para Shop &lt;&amp;&gt;</p>'));
  t.true(page.includes('<p class="sandbox-banner" role="note">Sandbox: este é um pagamento de teste. Não envie dinheiro real.</p>'));
  t.true(page.includes('<nav class="languages" aria-label="Idioma">'));
  const links = [...page.matchAll(/<a href="([^"]+)" hreflang="([^"]+)" lang="([^"]+)"( aria-current="true")?>([^<]+)<\/a>/g)].map((m) => [
    m[1],
    m[2],
    m[4] ? 'current' : '',
    m[5],
  ]);
  t.deepEqual(
    links.map((l) => l[0]),
    LOCALES.map((l) => `/pay/abc?lang=${l}`),
  );
  t.deepEqual(
    links.filter((l) => l[2]).map((l) => l[3]),
    ['Português'],
  );
  t.deepEqual(
    links.map((l) => l[1]),
    ['en', 'de', 'es', 'fr', 'pt-BR', 'it', 'tr', 'zh-Hans'],
  );
  t.true(page.includes('<main>\n<h1>Pay</h1>\n</main>'));
  t.false(page.includes('<script'), 'no script unless asked');
  t.false(/<style|style="/.test(page), 'no inline style');
});

test('the shell: a query in the switch base, no branding, no switch, the script, the refresh and body data', (t) => {
  t.true(payerPage({ title: 'x', locale: 'en', body: html``, switchBase: '/l/abc?amount=5' }).includes('href="/l/abc?amount=5&amp;lang=de"'));
  const bare = payerPage({ title: 'Not found', locale: 'zh', body: html`<h1>x</h1>`, switchBase: null });
  t.true(bare.includes('<title>Not found</title>'));
  t.false(bare.includes('<header'), 'nothing to put in a header');
  t.false(bare.includes('/checkout/brand/'));
  const live = payerPage({
    title: 'x',
    locale: 'en',
    body: html``,
    switchBase: null,
    script: true,
    refreshSeconds: 15,
    data: { events: '/e?a=1&b="2"', 'return-delay': '3' },
  });
  t.true(live.includes(`<script src="${CHECKOUT_ASSETS.url('checkout.js')}" defer></script>`));
  t.true(live.includes('<noscript><meta http-equiv="refresh" content="15"></noscript>'));
  t.true(live.includes('<body data-events="/e?a=1&amp;b=&quot;2&quot;" data-return-delay="3">'));
  t.throws(() => payerPage({ title: 'x', locale: 'en', body: html``, switchBase: null, data: { 'x" onload="y': '1' } }), {
    message: /not a data attribute name/,
  });
});

test('the headers: the page CSP, no caching, the language and Vary', (t) => {
  const headers = payerPageHeaders('zh');
  t.regex(headers['Content-Security-Policy']!, /default-src 'none'; script-src 'self'; style-src 'self'/);
  t.is(headers['Cache-Control'], 'no-store');
  t.is(headers['Content-Language'], 'zh-Hans');
  t.is(headers['Vary'], 'Accept-Language');
});

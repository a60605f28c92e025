import test from 'ava';
import { escapeHtml, html, trustedHtml } from './html.js';
import { pageHeaders } from './page-headers.js';

test('every interpolated value is escaped; nested templates and trusted markup are not escaped twice', (t) => {
  const name = `<script>alert("x")</script>&'`;
  const page = html`<p title="${name}">${name}</p>${html`<b>${'a<b'}</b>`}${trustedHtml('<hr>')}`;
  t.is(
    page.text,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p><b>a&lt;b</b><hr>',
  );
  t.is(escapeHtml(`"'<>&`), '&quot;&#39;&lt;&gt;&amp;');
});

test('arrays render each element; null, undefined and false render nothing; numbers and bigints as text', (t) => {
  const items = ['<1>', html`<i>2</i>`];
  t.is(
    html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>${null}${undefined}${false}${0}${10n ** 20n}`.text,
    '<ul><li>&lt;1&gt;</li><li><i>2</i></li></ul>0100000000000000000000',
  );
});

test('page headers forbid inline script and style, framing and sniffing; extra image sources are added', (t) => {
  const headers = pageHeaders({ imgSrc: ['https://cdn.example'] });
  const csp = headers['Content-Security-Policy']!;
  t.false(csp.includes('unsafe-inline'));
  t.true(csp.includes("script-src 'self'"));
  t.true(csp.includes("style-src 'self'"));
  t.true(csp.includes("img-src 'self' data: https://cdn.example"));
  t.true(csp.includes("frame-ancestors 'none'"));
  t.is(headers['X-Content-Type-Options'], 'nosniff');
  t.is(headers['Cache-Control'], 'no-store');
  t.is(pageHeaders({ cacheable: true })['Cache-Control'], undefined);
  t.is(headers['Referrer-Policy'], 'no-referrer');
  t.is(pageHeaders({ referrerPolicy: 'same-origin' })['Referrer-Policy'], 'same-origin');
});

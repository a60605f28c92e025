import test from 'ava';
import type { Context } from 'koa';
import { formActionSource, sameOrigin, secureCookie } from './request-checks.js';

/** The parts of a Koa context the checks read. */
function request(headers: Record<string, string>, protocol = 'http', host = '127.0.0.1:3000'): Context {
  return {
    protocol,
    host,
    hostname: host.replace(/:\d+$/, '').replace(/^\[|\]$/g, ''),
    get: (name: string) => headers[name.toLowerCase()] ?? '',
  } as unknown as Context;
}

test('a POST is same-origin without Origin, with its own origin, or with the configured base URL behind a proxy; never cross-site', (t) => {
  t.true(sameOrigin(request({})));
  t.true(sameOrigin(request({ origin: 'http://127.0.0.1:3000', 'sec-fetch-site': 'same-origin' })));
  t.false(sameOrigin(request({ origin: 'null' })));
  t.false(sameOrigin(request({ origin: 'https://evil.example' })));
  t.false(sameOrigin(request({ 'sec-fetch-site': 'cross-site' })));
  t.false(sameOrigin(request({ 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:3000' })));
  const proxied = request({ origin: 'https://pay.example.com' }, 'http', 'pay.example.com');
  t.false(sameOrigin(proxied));
  t.true(sameOrigin(proxied, 'https://pay.example.com/'));
  t.false(sameOrigin(proxied, 'https://other.example.com'));
});

test('the cookie is Secure except for plain http to a loopback address', (t) => {
  t.false(secureCookie(request({}, 'http', '127.0.0.1:3000')));
  t.false(secureCookie(request({}, 'http', 'localhost:3000')));
  t.false(secureCookie(request({}, 'http', '[::1]:3000')));
  t.true(secureCookie(request({}, 'https', '127.0.0.1:3000')));
  t.true(secureCookie(request({}, 'http', '192.168.1.10:3000')));
  t.true(secureCookie(request({}, 'http', 'pay.example.com')));
});

test("a page's extra form target is the origin of an http(s) URL; other schemes are refused", (t) => {
  t.is(formActionSource('https://shop.example/wp/?btcpay-settings-callback'), 'https://shop.example');
  t.is(formActionSource('http://127.0.0.1:8765/cb'), 'http://127.0.0.1:8765');
  t.is(formActionSource('http://[::1]:8765/cb'), 'http:');
  t.throws(() => formActionSource('javascript:alert(1)'));
  t.throws(() => formActionSource('data:text/html,x'));
  t.throws(() => formActionSource('/relative'));
});

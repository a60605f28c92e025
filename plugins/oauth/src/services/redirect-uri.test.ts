import test from 'ava';
import { redirectUriMatches, redirectUriProblem } from './redirect-uri.js';

test('loopback http on any port and https are accepted', (t) => {
  for (const uri of [
    'http://127.0.0.1:53682/callback',
    'http://localhost/cb',
    'http://[::1]:8080/cb?x=1',
    'https://app.example/cb',
    'https://app.example:8443/a/b?c=d',
  ]) {
    t.is(redirectUriProblem(uri), undefined, uri);
  }
});

test('plain http elsewhere, fragments, wildcards, credentials, custom schemes and junk are refused', (t) => {
  for (const uri of [
    'http://app.example/cb',
    'http://127.0.0.2.nip.io/cb',
    'http://localhost.evil.example/cb',
    'https://app.example/cb#frag',
    'https://*.example/cb',
    'https://u:p@app.example/cb',
    'myapp://cb',
    'javascript:alert(1)',
    'https://app.example/c\u0000b',
    'https://app.example/c b',
    'cb',
    '',
    'x'.repeat(3000),
  ]) {
    t.not(redirectUriProblem(uri), undefined, uri);
  }
  t.not(redirectUriProblem(42), undefined);
});

test('exact match, except that a loopback port may differ (RFC 8252 7.3)', (t) => {
  const registered = ['http://127.0.0.1:1234/callback', 'https://app.example/cb'];
  for (const uri of ['http://127.0.0.1:1234/callback', 'http://127.0.0.1:50000/callback', 'http://127.0.0.1/callback', 'https://app.example/cb'])
    t.true(redirectUriMatches(registered, uri), uri);
  for (const uri of [
    'http://127.0.0.1:1234/callback/',
    'http://127.0.0.1:1234/Callback',
    'http://127.0.0.1:1234/callback?x=1',
    'http://localhost:1234/callback',
    'https://app.example:444/cb',
    'https://app.example/cb/',
    'https://APP.example/cb',
    'https://app.example/cb#x',
    'http://127.0.0.1:1234/%63allback',
  ]) {
    t.false(redirectUriMatches(registered, uri), uri);
  }
});

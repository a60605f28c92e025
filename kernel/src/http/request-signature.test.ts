import test from 'ava';
import { createHmac } from 'node:crypto';
import { parseTimestamp, requestSigningString, signatureMatchesAny, signRequest, timestampInWindow } from './request-signature.js';

test('the signing string is METHOD, pathname, timestamp and raw body joined by line feeds', (t) => {
  t.is(requestSigningString('post', '/api/v1/invoices', '1700000000', '{"a":1}'), 'POST\n/api/v1/invoices\n1700000000\n{"a":1}');
  t.is(requestSigningString('GET', '/api/v1/invoices', '1700000000', ''), 'GET\n/api/v1/invoices\n1700000000\n');
});

test('the signature is lowercase hex HMAC-SHA256 under the secret', (t) => {
  const expected = createHmac('sha256', 'secret').update('GET\n/p\n1\n').digest('hex');
  t.is(signRequest({ secret: 'secret', method: 'GET', pathname: '/p', timestamp: 1 }), expected);
});

test('a signature matches when any candidate secret produced it', (t) => {
  const s = requestSigningString('GET', '/p', '1', '');
  const sig = signRequest({ secret: 'new', method: 'GET', pathname: '/p', timestamp: 1 });
  t.true(signatureMatchesAny(sig, s, ['old', 'new']));
  t.false(signatureMatchesAny(sig, s, ['old']));
  t.false(signatureMatchesAny(sig, s, []));
  t.false(signatureMatchesAny('nothex', s, ['new']));
  t.false(signatureMatchesAny(sig.toUpperCase(), s, ['new']));
});

test('timestamps: whole seconds only, ±300 s window inclusive', (t) => {
  t.is(parseTimestamp('1700000000'), 1700000000);
  t.is(parseTimestamp('1.5'), undefined);
  t.is(parseTimestamp('-1'), undefined);
  t.is(parseTimestamp(''), undefined);
  t.true(timestampInWindow(1000, 1300));
  t.true(timestampInWindow(1300, 1000));
  t.false(timestampInWindow(1000, 1301));
  t.false(timestampInWindow(1301, 1000));
});

import test from 'ava';
import { createHmac } from 'node:crypto';
import {
  acceptedSigningTargets,
  parseTimestamp,
  requestSigningString,
  requestTarget,
  signatureMatchesAny,
  signRequest,
  timestampInWindow,
} from './request-signature.js';

test('the request target is the pathname plus the raw query string as sent', (t) => {
  t.is(requestTarget(new URL('http://h/api/v1/invoices?limit=10&status=paid')), '/api/v1/invoices?limit=10&status=paid');
  t.is(requestTarget(new URL('http://h/api/v1/invoices?b=2&a=1')), '/api/v1/invoices?b=2&a=1', 'not sorted');
  t.is(requestTarget(new URL('http://h/api/v1/invoices')), '/api/v1/invoices');
  t.not(
    signRequest({ secret: 's', method: 'GET', target: '/api/v1/invoices?status=paid', timestamp: 1 }),
    signRequest({ secret: 's', method: 'GET', target: '/api/v1/invoices?status=pending', timestamp: 1 }),
  );
});

test('the signing string is METHOD, target, timestamp and raw body joined by line feeds', (t) => {
  t.is(requestSigningString('GET', '/api/v1/invoices?limit=10&status=paid', '1700000000', ''), 'GET\n/api/v1/invoices?limit=10&status=paid\n1700000000\n');
  t.is(requestSigningString('post', '/api/v1/invoices', '1700000000', '{"a":1}'), 'POST\n/api/v1/invoices\n1700000000\n{"a":1}');
  t.is(requestSigningString('GET', '/api/v1/invoices', '1700000000', ''), 'GET\n/api/v1/invoices\n1700000000\n');
});

test('the signature is lowercase hex HMAC-SHA256 under the secret', (t) => {
  const expected = createHmac('sha256', 'secret').update('GET\n/p\n1\n').digest('hex');
  t.is(signRequest({ secret: 'secret', method: 'GET', target: '/p', timestamp: 1 }), expected);
});

test('a signature matches when any candidate secret produced it', (t) => {
  const s = requestSigningString('GET', '/p', '1', '');
  const sig = signRequest({ secret: 'new', method: 'GET', target: '/p', timestamp: 1 });
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

test('accepted signing targets: the pathname alone too, unless the query is required (issue 33 item 1)', (t) => {
  t.deepEqual(acceptedSigningTargets('/api/v1/x?a=1&b=%20', 'optional'), ['/api/v1/x?a=1&b=%20', '/api/v1/x']);
  t.deepEqual(acceptedSigningTargets('/api/v1/x?a=1', 'required'), ['/api/v1/x?a=1']);
  t.deepEqual(acceptedSigningTargets('/api/v1/x', 'required'), ['/api/v1/x']);
  t.deepEqual(acceptedSigningTargets('/api/v1/x', 'optional'), ['/api/v1/x']);
  t.deepEqual(acceptedSigningTargets('/api/v1/x?', 'required'), ['/api/v1/x?', '/api/v1/x'], 'an empty query filters nothing');
  const strings = acceptedSigningTargets('/x?q=1', 'optional').map((target) => requestSigningString('GET', target, '1', ''));
  t.true(signatureMatchesAny(signRequest({ secret: 's', method: 'GET', target: '/x', timestamp: 1 }), strings, ['s']));
  t.true(signatureMatchesAny(signRequest({ secret: 's', method: 'GET', target: '/x?q=1', timestamp: 1 }), strings, ['s']));
  t.false(signatureMatchesAny(signRequest({ secret: 's', method: 'GET', target: '/x?q=2', timestamp: 1 }), strings, ['s']));
});

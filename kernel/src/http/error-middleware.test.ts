import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { coreErrors } from '../errors/core-errors.js';
import { ProviderError } from '@gw/chain-api';
import { errorMiddleware, loggedPath, toAppError } from './error-middleware.js';
import { underPathPrefix, type ErrorFormat } from './route.js';

test('a path prefix covers the path itself and what is below it, never a longer sibling', (t) => {
  t.true(underPathPrefix('/oauth', '/oauth'));
  t.true(underPathPrefix('/oauth/token', '/oauth'));
  t.true(underPathPrefix('/oauth/authorize/email', '/oauth/authorize'));
  t.false(underPathPrefix('/oauthx', '/oauth'));
  t.false(underPathPrefix('/api/v1/oauth', '/oauth'));
});

test("errors under a format's prefix are rendered by the longest matching format; others keep the REST envelope", async (t) => {
  const formats: ErrorFormat[] = [
    { pathPrefix: '/p', render: ({ error }) => ({ status: 418, headers: { 'x-format': 'p' }, body: { outer: error.code } }) },
    { pathPrefix: '/p/inner', render: ({ error, requestId }) => ({ body: { inner: error.code, requestId } }) },
  ];
  const app = new Koa();
  app.use(async (ctx, next) => {
    ctx.state['requestId'] = 'req-1';
    await next();
  });
  app.use(errorMiddleware(pino({ level: 'silent' }), formats));
  app.use(async () => {
    throw coreErrors.payload_too_large();
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = async (path: string) => {
    const res = await fetch(`${base}${path}`, { method: 'POST' });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };
  const outer = await call('/p/x');
  t.is(outer.status, 418);
  t.deepEqual(outer.body, { outer: 'payload_too_large' });
  t.is(outer.headers.get('x-format'), 'p');
  const inner = await call('/p/inner/y');
  t.is(inner.status, 413, "the error's status when the format gives none");
  t.deepEqual(inner.body, { inner: 'payload_too_large', requestId: 'req-1' });
  const rest = await call('/px');
  t.is(rest.status, 413);
  t.like(rest.body, { error_code: 'payload_too_large', request_id: 'req-1' });
});

test('a chain provider that failed (every configured endpoint) is 503 chain_provider_unavailable with Retry-After, naming no provider; anything else unknown stays a 500', (t) => {
  const down = toAppError(new ProviderError('timeout', 'node-a', 'http://user:secret@node-a:8332 timed out'));
  t.like(down, { code: 'chain_provider_unavailable', status: 503, retryAfter: 30 });
  t.false(down.message.includes('secret'));
  t.like(toAppError(new ProviderError('rate_limited', 'node-a', 'HTTP 429', 4_500)), { code: 'chain_provider_unavailable', retryAfter: 5 });
  t.like(toAppError(new Error('boom')), { code: 'internal_error', status: 500 });
});

test('a failed request is logged by its route pattern, or its path with claim and checkout tokens masked, never the token', async (t) => {
  t.is(loggedPath({ path: '/refunds/claim/SECRETtoken', _matchedRoute: '/refunds/claim/:token' }), '/refunds/claim/:token');
  t.is(loggedPath({ path: '/refunds/claim/SECRETtoken' }), '/refunds/claim/:token');
  t.is(loggedPath({ path: '/checkout/SECRETtoken/qr.svg' }), '/checkout/:token/qr.svg');
  t.is(loggedPath({ path: '/api/v1/sandbox/refunds/claim/SECRET' }), '/api/v1/sandbox/refunds/claim/:token');
  t.is(loggedPath({ path: '/api/v1/invoices/01J9Z4KQ0M5C2S1GZ6Y3T8B9WA' }), '/api/v1/invoices/01J9Z4KQ0M5C2S1GZ6Y3T8B9WA');
  t.is(loggedPath({ path: '/checkout' }), '/checkout');

  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const app = new Koa();
  app.use(errorMiddleware(logger));
  app.use(async () => {
    throw new Error('boom');
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/refunds/claim/SECRETtoken123`);
  t.is(res.status, 500);
  t.is(lines.length, 1);
  t.false(lines[0]!.includes('SECRETtoken123'));
  t.is(JSON.parse(lines[0]!).path, '/refunds/claim/:token');
});

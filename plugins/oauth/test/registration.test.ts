import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { MailSink, startOAuthKernel } from './helpers.js';

let gw: TestKernel;
let limited: TestKernel;
let sink: MailSink;
test.before(async () => {
  sink = await MailSink.start();
  gw = await startOAuthKernel(sink);
  // The spec's limit (10 per hour per source IP); X-Forwarded-For gives each test its own address.
  limited = await startOAuthKernel(sink, { 'plugins.oauth.registrationsPerHourPerIp': 10, 'http.trustProxy': true });
});
test.after.always(async () => {
  await gw?.close();
  await limited?.close();
  await sink?.close();
});

const register = async (k: TestKernel, body: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${k.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
};

test('a public client gets a 26-character ULID and every field of spec 2.7, no secret', async (t) => {
  const res = await register(gw, {
    client_name: 'Claude',
    redirect_uris: ['http://127.0.0.1:33418/callback', 'https://app.example/cb'],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  t.is(res.status, 201);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.is(res.headers.get('access-control-allow-origin'), '*');
  t.regex(res.body['client_id'], /^[0-9A-HJKMNP-TV-Z]{26}$/);
  t.deepEqual(Object.keys(res.body).sort(), [
    'client_id',
    'client_id_issued_at',
    'client_name',
    'client_secret_expires_at',
    'grant_types',
    'redirect_uris',
    'response_types',
    'token_endpoint_auth_method',
  ]);
  t.true(Math.abs(res.body['client_id_issued_at'] - Date.now() / 1000) < 600);
  t.is(res.body['client_secret_expires_at'], 0);
  t.like(res.body, {
    client_name: 'Claude',
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  });
});

test('a confidential client gets a non-rotating secret, stored only as its hash', async (t) => {
  const res = await register(gw, { client_name: 'Server app', redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'client_secret_post' });
  t.is(res.status, 201);
  t.is(typeof res.body['client_secret'], 'string');
  t.true(res.body['client_secret'].length >= 32);
  t.is(res.body['client_secret_expires_at'], 0);
  const row = await gw.kernel.cradle.db('oauth_clients').where({ client_id: res.body['client_id'] }).first();
  t.not(row.secret_hash, res.body['client_secret']);
  t.regex(row.secret_hash, /^[0-9a-f]{64}$/);
  t.is((await gw.kernel.cradle.db('kernel_audit_log').where({ action: 'oauth.client.register', target: `oauth_client:${res.body['client_id']}` })).length, 1);
});

test('bad redirect URIs are 400 invalid_redirect_uri; other bad metadata 400 invalid_client_metadata', async (t) => {
  for (const redirect_uris of [
    ['http://app.example/cb'],
    ['https://app.example/cb#x'],
    ['https://*.example/cb'],
    ['myapp://cb'],
    [],
    'https://app.example/cb',
    [42],
    Array.from({ length: 11 }, (_, i) => `https://app.example/${i}`),
  ]) {
    const res = await register(gw, { redirect_uris, token_endpoint_auth_method: 'none' });
    t.is(res.status, 400, JSON.stringify(redirect_uris));
    t.is(res.body['error'], 'invalid_redirect_uri');
    t.is(res.body['error_code'], 'invalid_redirect_uri');
    t.is(typeof res.body['error_description'], 'string');
  }
  const ok = ['https://app.example/cb'];
  for (const body of [
    { redirect_uris: ok, token_endpoint_auth_method: 'client_secret_basic' },
    { redirect_uris: ok, token_endpoint_auth_method: 'private_key_jwt' },
    { redirect_uris: ok, grant_types: ['client_credentials'] },
    { redirect_uris: ok, grant_types: ['refresh_token'] },
    { redirect_uris: ok, response_types: ['token'] },
    { redirect_uris: ok, client_name: 'x'.repeat(201) },
    { redirect_uris: ok, client_name: 'bell\u0007' },
    [ok],
  ]) {
    const res = await register(gw, body);
    t.is(res.status, 400, JSON.stringify(body).slice(0, 80));
    t.is(res.body['error'], 'invalid_client_metadata');
  }
  const form = await fetch(`${gw.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'redirect_uris=https://app.example/cb',
  });
  t.is(form.status, 400);
  t.like(await form.json(), { error: 'invalid_client_metadata' });
  const broken = await register(gw, '{"redirect_uris": [');
  t.is(broken.status, 400);
  // Malformed JSON is refused by the kernel's body reader, in RFC 7591's shape (issue 24).
  t.is(broken.body['error'], 'invalid_client_metadata');
  t.is(broken.body['error_code'], 'invalid_client_metadata');
});

test('omitted token_endpoint_auth_method registers a client_secret_post client (RFC default basic is not offered)', async (t) => {
  const res = await register(gw, { redirect_uris: ['http://localhost:7777/cb'] });
  t.is(res.status, 201);
  t.is(res.body['token_endpoint_auth_method'], 'client_secret_post');
  t.is(typeof res.body['client_secret'], 'string');
  t.is(res.body['client_name'], null);
  t.deepEqual(res.body['grant_types'], ['authorization_code']);
});

test('10 registrations per hour per source IP, then 429 with Retry-After; counted in PostgreSQL, per address', async (t) => {
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const body = { redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none' };
  for (let i = 0; i < 10; i++) t.is((await register(limited, body, from('203.0.113.7'))).status, 201, `registration ${i + 1}`);
  const refused = await register(limited, body, from('203.0.113.7'));
  t.is(refused.status, 429);
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
  t.is(refused.body['error'], 'rate_limit_exceeded');
  // Invalid requests count too, and the counter lives in the database shared by every instance.
  t.is((await register(limited, { redirect_uris: ['http://x.example/'] }, from('203.0.113.7'))).status, 429);
  const counter = await limited.kernel.cradle.db('kernel_rate_limit_counters').where({ key: 'oauth.register:ip:203.0.113.7' }).first();
  t.is(counter.count, 12);
  t.is((await register(limited, body, from('203.0.113.8'))).status, 201, 'another address has its own budget');
  // A client cannot pick its address: the proxy appends the real one, and that one is counted.
  t.is((await register(limited, body, from('198.51.100.99, 203.0.113.7'))).status, 429, 'a left-most X-Forwarded-For entry is ignored');
});

import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CERT_PEM, DocumentServer, MailSink, startOAuthKernel } from './helpers.js';

// Two gateways: `strict` with production's SSRF guard (no private addresses), `lab` with the test
// seam (loopback allowed, the local certificate trusted) to reach the local HTTPS document server.
let strict: TestKernel;
let lab: TestKernel;
let sink: MailSink;
let docs: DocumentServer;

test.before(async () => {
  sink = await MailSink.start();
  docs = await DocumentServer.start();
  strict = await startOAuthKernel(sink, { 'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM });
  lab = await startOAuthKernel(sink, { 'plugins.oauth.clientDocuments.allowPrivateAddresses': true, 'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM, 'plugins.oauth.clientDocuments.timeoutMs': 1000 });
});
test.after.always(async () => {
  await strict?.close();
  await lab?.close();
  await sink?.close();
  await docs?.close();
});

const REDIRECT = 'http://127.0.0.1:9999/cb';
const doc = (clientId: string, extra: Record<string, unknown> = {}) => JSON.stringify({ client_id: clientId, client_name: 'Doc', redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', ...extra });

async function authorizePage(gw: TestKernel, clientId: string): Promise<{ status: number; text: string; location: string | null; retryAfter: string | null }> {
  const url = new URL(`${gw.url}/oauth/authorize`);
  url.search = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, state: 'st', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256', resource: `${gw.url}/api/mcp/transport` }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  return { status: res.status, text: await res.text(), location: res.headers.get('location'), retryAfter: res.headers.get('retry-after') };
}

async function cached(gw: TestKernel, clientId: string): Promise<boolean> {
  return (await gw.kernel.cradle.db('oauth_clients').where({ client_id: clientId })).length > 0;
}

test('metadata documents at loopback, link-local and private addresses are refused at resolution time; nothing is fetched', async (t) => {
  const viaName = docs.serve('/ssrf/by-name.json', (origin) => ({ body: doc(`${origin}/ssrf/by-name.json`) }));
  for (const clientId of [
    'https://127.0.0.1/client.json',
    'https://169.254.169.254/latest/meta-data.json',
    'https://10.0.0.8/client.json',
    'https://[::1]/client.json',
    'https://[::ffff:7f00:1]/client.json',
    'https://[fe80::1]/client.json',
    viaName, // https://localhost:<port>/..., a name that resolves to 127.0.0.1
  ]) {
    const page = await authorizePage(strict, clientId);
    t.is(page.status, 400, clientId);
    t.is(page.location, null, 'never redirected anywhere');
    // One generic answer: the reason (here a private address) is logged, never shown (finding 8).
    t.regex(page.text, /could not be fetched or is not valid/, clientId);
    t.notRegex(page.text, /private|loopback|link-local|169\.254|127\.0\.0\.1/, clientId);
    t.false(await cached(strict, clientId));
  }
  t.is(docs.requests.filter((r) => r.startsWith('/ssrf/')).length, 0, 'the document server was never contacted');
  // The same document is accepted where the test seam allows loopback: the refusal was the guard.
  const ok = await authorizePage(lab, viaName);
  t.is(ok.status, 200);
  t.regex(ok.text, /Sign in/);
});

test('oversized, redirecting, mismatched, non-JSON and secret-using documents are refused with one generic page that reflects no detail of the fetch (issue 26 finding 8)', async (t) => {
  const cases: [string, (origin: string) => { status?: number; headers?: Record<string, string>; body: string }, RegExp][] = [
    ['/bad/big.json', (o) => ({ body: doc(`${o}/bad/big.json`, { client_name: 'x'.repeat(6000) }) }), /larger than 5120 bytes/],
    ['/bad/big-chunked.json', (o) => ({ headers: { 'transfer-encoding': 'chunked' }, body: doc(`${o}/bad/big-chunked.json`, { padding: 'y'.repeat(20_000) }) }), /larger than 5120 bytes/],
    ['/bad/redirect.json', (o) => ({ status: 302, headers: { location: `${o}/clients/elsewhere.json` }, body: '' }), /redirects are not followed/],
    ['/bad/other-id.json', (o) => ({ body: doc(`${o}/clients/someone-else.json`) }), /another client_id/],
    ['/bad/html.json', () => ({ headers: { 'content-type': 'text/html' }, body: '<html></html>' }), /not application\/json/],
    ['/bad/not-json.json', () => ({ body: '{"client_id":' }), /not valid JSON/],
    ['/bad/secret.json', (o) => ({ body: doc(`${o}/bad/secret.json`, { token_endpoint_auth_method: 'client_secret_post' }) }), /token_endpoint_auth_method must be none/],
    ['/bad/http-redirect-uri.json', (o) => ({ body: doc(`${o}/bad/http-redirect-uri.json`, { redirect_uris: ['http://evil.example/cb'] }) }), /plain http is allowed only on loopback/],
    ['/bad/missing.json', () => ({ status: 404, body: '{}' }), /HTTP 404/],
    ['/bad/control.json', (o) => ({ body: doc(`${o}/bad/control.json`, { redirect_uris: ['https://app.example/c\u0000b'] }) }), /control characters/],
    ['/bad/array.json', () => ({ body: '[]' }), /not a JSON object/],
  ];
  for (const [path, reply, message] of cases) {
    const clientId = docs.serve(path, reply);
    const page = await authorizePage(lab, clientId);
    t.is(page.status, 400, path);
    t.is(page.location, null);
    t.regex(page.text, /could not be fetched or is not valid/, path);
    t.notRegex(page.text, message, `${path}: the reason is not reflected`);
    t.false(await cached(lab, clientId), path);
  }
});

test('a document server that never answers is cut off by the fetch timeout', async (t) => {
  const clientId = docs.serve('/slow/hang.json', () => ({ hang: true, body: '' }));
  const page = await authorizePage(lab, clientId);
  t.is(page.status, 400);
  t.regex(page.text, /could not be fetched or is not valid/);
  t.notRegex(page.text, /longer than 1000 ms/);
  t.false(await cached(lab, clientId));
});

test('client_id URLs must be https with a path, without fragment, credentials or dot segments', async (t) => {
  for (const clientId of ['http://example.com/client.json', 'https://example.com/', 'https://example.com', 'https://u:p@example.com/c.json', 'https://example.com/a/../c.json', 'https://EXAMPLE.com/c.json']) {
    const page = await authorizePage(strict, clientId);
    t.is(page.status, 400, clientId);
    t.regex(page.text, /Unknown application/, clientId);
  }
});

test('a cached document is used until it expires, then fetched again', async (t) => {
  let name = 'First';
  const clientId = docs.serve('/clients/ttl.json', (o) => ({ body: doc(`${o}/clients/ttl.json`, { client_name: name }) }));
  t.is((await authorizePage(lab, clientId)).status, 200);
  name = 'Second';
  t.regex((await authorizePage(lab, clientId)).text, /First/);
  await lab.kernel.cradle.db('oauth_clients').where({ client_id: clientId }).update({ document_expires_at: lab.kernel.cradle.db.raw(`now() - interval '1 second'`) });
  t.regex((await authorizePage(lab, clientId)).text, /Second/);
  t.is(docs.requests.filter((r) => r === '/clients/ttl.json').length, 2);
});

test('GET /oauth/authorize is rate limited per client address in PostgreSQL: a 429 page with Retry-After, nothing written (issue 26 finding 8)', async (t) => {
  const limited = await startOAuthKernel(sink, { 'plugins.oauth.authorizePerMinutePerIp': 3 });
  t.teardown(() => limited.close());
  const { db } = limited.kernel.cradle;
  // Fixed one-minute windows: keep the calls inside one.
  while (new Date().getUTCSeconds() > 50) await new Promise((resolve) => setTimeout(resolve, 1000));
  const clientId = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
  for (let i = 0; i < 3; i++) t.is((await authorizePage(limited, clientId)).status, 400, 'within the limit: answered (unknown application)');
  const sessions = (await db('oauth_sessions')).length;
  const refused = await authorizePage(limited, clientId);
  t.is(refused.status, 429);
  t.regex(refused.text, /Too many authorization requests/);
  const retryAfter = Number(refused.retryAfter);
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.retryAfter}`);
  t.is((await db('oauth_sessions')).length, sessions, 'the refused request wrote no session');
  const counter = await db('kernel_rate_limit_counters').where('key', 'like', 'oauth.authorize:ip:%').first();
  t.is(Number(counter.count), 4);
  // Another instance on the same database counts on: the limit is not per process.
  const other = await startOAuthKernel(sink, { 'plugins.oauth.authorizePerMinutePerIp': 3 }, { database: limited.database });
  t.teardown(() => other.close());
  t.is((await authorizePage(other, clientId)).status, 429);
});

import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { authorizationUrl, CERT_PEM, DocumentServer, MailSink, startOAuthKernel } from './helpers.js';
import { stopAll } from '@gw/testing';

// Two gateways: `strict` with production's SSRF guard (no private addresses), `lab` with the test
// seam (loopback allowed, the local certificate trusted) to reach the local HTTPS document server.
let strict: TestKernel, lab: TestKernel, sink: MailSink, docs: DocumentServer;

test.before(async () => {
  sink = await MailSink.start();
  docs = await DocumentServer.start();
  strict = await startOAuthKernel(sink, { 'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM });
  lab = await startOAuthKernel(sink, {
    'plugins.oauth.clientDocuments.allowPrivateAddresses': true,
    'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM,
    'plugins.oauth.clientDocuments.timeoutMs': 3000,
    // Every test here fetches from the one local document server (one host): the per-host throttle
    // (default 30 a minute) would refuse the later ones whenever the file's concurrent tests share a
    // minute. The throttle has its own test, on its own gateway.
    'plugins.oauth.clientDocuments.fetchesPerMinutePerHost': 100_000,
  });
});
test.after.always(() => stopAll(strict, lab, sink, docs));

const REDIRECT = 'http://127.0.0.1:9999/cb';
const doc = (clientId: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    client_id: clientId,
    client_name: 'Doc',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...extra,
  });

async function authorizePage(gw: TestKernel, clientId: string): Promise<{ status: number; text: string; location: string | null; retryAfter: string | null }> {
  const url = authorizationUrl(gw.url, {
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'st',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    resource: `${gw.url}/api/mcp/transport`,
  });
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
    [
      '/bad/big-chunked.json',
      (o) => ({ headers: { 'transfer-encoding': 'chunked' }, body: doc(`${o}/bad/big-chunked.json`, { padding: 'y'.repeat(20_000) }) }),
      /larger than 5120 bytes/,
    ],
    ['/bad/redirect.json', (o) => ({ status: 302, headers: { location: `${o}/clients/elsewhere.json` }, body: '' }), /redirects are not followed/],
    ['/bad/other-id.json', (o) => ({ body: doc(`${o}/clients/someone-else.json`) }), /another client_id/],
    ['/bad/html.json', () => ({ headers: { 'content-type': 'text/html' }, body: '<html></html>' }), /not application\/json/],
    ['/bad/not-json.json', () => ({ body: '{"client_id":' }), /not valid JSON/],
    [
      '/bad/secret.json',
      (o) => ({ body: doc(`${o}/bad/secret.json`, { token_endpoint_auth_method: 'client_secret_post' }) }),
      /token_endpoint_auth_method must be none/,
    ],
    [
      '/bad/http-redirect-uri.json',
      (o) => ({ body: doc(`${o}/bad/http-redirect-uri.json`, { redirect_uris: ['http://evil.example/cb'] }) }),
      /plain http is allowed only on loopback/,
    ],
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
  for (const clientId of [
    'http://example.com/client.json',
    'https://example.com/',
    'https://example.com',
    'https://u:p@example.com/c.json',
    'https://example.com/a/../c.json',
    'https://EXAMPLE.com/c.json',
  ]) {
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
  await lab.kernel.cradle
    .db('oauth_clients')
    .where({ client_id: clientId })
    .update({ document_expires_at: lab.kernel.cradle.db.raw(`now() - interval '1 second'`) });
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

test('a refused document is remembered in PostgreSQL for failureTtlSeconds: no new fetch until then, on any instance (issue 24)', async (t) => {
  let status = 500;
  const clientId = docs.serve('/negative/flaky.json', (o) => (status === 200 ? { body: doc(`${o}/negative/flaky.json`) } : { status, body: '{}' }));
  const fetches = () => docs.requests.filter((r) => r === '/negative/flaky.json').length;
  t.is((await authorizePage(lab, clientId)).status, 400);
  t.is(fetches(), 1);
  status = 200;
  // Still refused, and not fetched: the failure is cached. A second instance reads the same row.
  const again = await authorizePage(lab, clientId);
  t.is(again.status, 400);
  t.regex(again.text, /could not be fetched or is not valid/);
  const other = await startOAuthKernel(
    sink,
    { 'plugins.oauth.clientDocuments.allowPrivateAddresses': true, 'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM },
    { database: lab.database },
  );
  t.teardown(() => other.close());
  t.is((await authorizePage(other, clientId)).status, 400);
  t.is(fetches(), 1, 'no fetch while the failure is cached');
  const { db } = lab.kernel.cradle;
  const row = await db('oauth_client_document_failures')
    .where({ client_id: clientId })
    .first(db.raw('extract(epoch from retry_at - failed_at)::int as ttl'), 'reason');
  t.is(row.ttl, 60, 'failureTtlSeconds (default 60), on the database clock');
  t.regex(row.reason, /HTTP 500/, 'the reason is kept for the operator');
  // Once the failure expires (moved in the database), the document is fetched again and the row goes.
  await db('oauth_client_document_failures')
    .where({ client_id: clientId })
    .update({ retry_at: db.raw(`now() - interval '1 second'`) });
  t.is((await authorizePage(lab, clientId)).status, 200);
  t.is(fetches(), 2);
  t.is((await db('oauth_client_document_failures').where({ client_id: clientId })).length, 0);
});

test('document fetches are throttled per source host in PostgreSQL; a throttled client with a cached copy still works (issue 24)', async (t) => {
  const throttled = await startOAuthKernel(sink, {
    'plugins.oauth.clientDocuments.allowPrivateAddresses': true,
    'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM,
    'plugins.oauth.clientDocuments.fetchesPerMinutePerHost': 3,
  });
  t.teardown(() => throttled.close());
  // Fixed one-minute windows: keep the calls inside one.
  while (new Date().getUTCSeconds() > 45) await new Promise((resolve) => setTimeout(resolve, 1000));
  const known = docs.serve('/throttle/known.json', (o) => ({ body: doc(`${o}/throttle/known.json`) }));
  t.is((await authorizePage(throttled, known)).status, 200, 'fetch 1 of 3');
  // Expired, so the next authorization wants a fetch.
  const { db } = throttled.kernel.cradle;
  await db('oauth_clients')
    .where({ client_id: known })
    .update({ document_expires_at: db.raw(`now() - interval '1 second'`) });
  const paths = ['/throttle/a.json', '/throttle/b.json', '/throttle/c.json', '/throttle/d.json'];
  const ids = paths.map((p) => docs.serve(p, (o) => ({ body: doc(`${o}${p}`) })));
  const statuses = [];
  for (const id of ids) statuses.push((await authorizePage(throttled, id)).status);
  t.deepEqual(statuses, [200, 200, 400, 400], 'two more fetches, then the host is throttled');
  t.is(docs.requests.filter((r) => r.startsWith('/throttle/')).length, 3, 'the gateway made three fetches to the host, no more');
  const counter = await db('kernel_rate_limit_counters').where('key', 'like', 'oauth.document-fetch:host:localhost:%').first();
  t.is(Number(counter.count), 5);
  // A throttled refusal is not a failure of the document: nothing goes into the negative cache.
  t.is((await db('oauth_client_document_failures').whereIn('client_id', ids)).length, 0);
  // The known client is served from its (stale) cached copy instead of being refused.
  t.is((await authorizePage(throttled, known)).status, 200);
  t.is(docs.requests.filter((r) => r === '/throttle/known.json').length, 1);
});

test('Cache-Control max-age of a document decides how long it is used, within minTtlSeconds and maxTtlSeconds (issue 24)', async (t) => {
  const { db } = lab.kernel.cradle;
  const cases: [string, string | undefined, number][] = [
    ['/cc/max-age.json', 'public, max-age=600', 600],
    ['/cc/huge.json', 'max-age=999999999', 86_400],
    ['/cc/tiny.json', 'max-age=1', 60],
    ['/cc/no-store.json', 'no-store', 60],
    ['/cc/none.json', undefined, 3600],
  ];
  for (const [path, header, ttl] of cases) {
    const clientId = docs.serve(path, (o) => ({ body: doc(`${o}${path}`), ...(header ? { headers: { 'cache-control': header } } : {}) }));
    t.is((await authorizePage(lab, clientId)).status, 200, path);
    const row = await db('oauth_clients')
      .where({ client_id: clientId })
      .first(db.raw('extract(epoch from document_expires_at - document_fetched_at)::int as ttl'));
    t.is(row.ttl, ttl, `${path} (${header ?? 'no header'})`);
  }
});

test("errors of a document client go back only to a redirect URI on the document's own origin; others get the page (issue 24)", async (t) => {
  const foreign = docs.serve('/redirects/foreign.json', (o) => ({
    body: doc(`${o}/redirects/foreign.json`, { redirect_uris: ['https://elsewhere.example/cb'] }),
  }));
  const own = docs.serve('/redirects/own.json', (o) => ({ body: doc(`${o}/redirects/own.json`, { redirect_uris: [`${o}/cb`] }) }));
  const bad = (clientId: string, redirectUri: string) => {
    const url = authorizationUrl(lab.url, {
      response_type: 'token',
      client_id: clientId,
      redirect_uri: redirectUri,
      state: 'st',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      resource: `${lab.url}/api/mcp/transport`,
    });
    return fetch(url, { redirect: 'manual' });
  };
  const toForeign = await bad(foreign, 'https://elsewhere.example/cb');
  t.is(toForeign.status, 400);
  t.is(toForeign.headers.get('location'), null);
  t.regex(await toForeign.text(), /unsupported_response_type/);
  const toOwn = await bad(own, `${docs.origin}/cb`);
  t.is(toOwn.status, 302);
  t.is(new URL(toOwn.headers.get('location')!).searchParams.get('error'), 'unsupported_response_type');
});

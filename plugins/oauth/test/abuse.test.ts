import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { MailSink, WebClient, authorizationUrl, authorizeInBrowser, hiddenFields, inviteUser, registerClient, startOAuthKernel } from './helpers.js';

// Issue 24 item 4: sign-in code budgets, error shapes of every /oauth endpoint, and error
// redirects of openly registered clients. The gateway trusts X-Forwarded-For (one proxy), so each
// test picks its own client addresses; the per-address budgets have their default values.
let gw: TestKernel;
let sink: MailSink;
let resource: string;
test.before(async () => {
  sink = await MailSink.start();
  gw = await startOAuthKernel(sink, { 'http.trustProxy': true, 'http.bodyLimitBytes': 4096, 'plugins.oauth.emailCode.sendsPerHourPerIp': 20 });
  resource = `${gw.url}/api/mcp/transport`;
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const LOOPBACK = 'http://127.0.0.1:41234/callback';

const register = (redirect: string) => registerClient(gw.url, { client_name: 'abuse', redirect_uris: [redirect], token_endpoint_auth_method: 'none' });

function authorizeUrl(clientId: string, redirect: string, extra: Record<string, string> = {}): URL {
  const verifier = randomBytes(48).toString('base64url');
  return authorizationUrl(gw.url, {
    client_id: clientId,
    redirect_uri: redirect,
    state: 'st',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    resource,
    ...extra,
  });
}

/** Opens the sign-in page from `ip` and asks for a code for `email`; the answer's status and text. */
async function requestCode(clientId: string, email: string, ip: string): Promise<{ status: number; text: string }> {
  const web = new WebClient(ip);
  const start = await web.get(authorizeUrl(clientId, LOOPBACK));
  const page = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email });
  return { status: page.status, text: page.text };
}

/** The hourly budgets are fixed windows aligned to the hour: keep a test's calls inside one. */
async function awayFromTheHour(): Promise<void> {
  while (Math.floor(Date.now() / 1000) % 3600 > 3580) await new Promise((resolve) => setTimeout(resolve, 1000));
}

test("a stranger asking for someone's sign-in codes is limited per requester, and cannot lock the person out (issue 24)", async (t) => {
  await awayFromTheHour();
  const clientId = await register(LOOPBACK);
  const victim = await inviteUser(gw, 'victim');
  // Five codes for the victim's address from the stranger's address, each from a fresh session.
  for (let i = 0; i < 5; i++) t.is((await requestCode(clientId, victim.email, '203.0.113.66')).status, 200, `code ${i + 1}`);
  const refused = await requestCode(clientId, victim.email, '203.0.113.66');
  t.is(refused.status, 429);
  t.regex(refused.text, /Too many codes were requested/);
  // More tries from the stranger stay refused and do not count against the address as a whole.
  for (let i = 0; i < 3; i++) t.is((await requestCode(clientId, victim.email, '203.0.113.66')).status, 429);
  const { db } = gw.kernel.cradle;
  const addressWide = await db('kernel_rate_limit_counters')
    .where('key', 'like', 'oauth.sign-in:email:%')
    .whereRaw(`key = 'oauth.sign-in:email:' || encode(sha256(?::bytea), 'hex')`, [victim.email.toLowerCase()])
    .first();
  t.is(Number(addressWide.count), 5, "only the stranger's allowed requests count against the address");
  // The victim, from their own address, still gets a code and signs in (with the newest mail).
  for (let i = 0; i < 5; i++) await sink.nextCode(victim.email);
  const before = sink.count(victim.email);
  const back = await authorizeInBrowser(new WebClient('198.51.100.7'), gw.url, authorizeUrl(clientId, LOOPBACK), victim.email, sink);
  t.truthy(back.searchParams.get('code'), back.href);
  t.true(sink.count(victim.email) > before);
});

test('one requester is limited across addresses too (sendsPerHourPerIp), and the address-wide cap holds against many requesters (issue 24)', async (t) => {
  await awayFromTheHour();
  const clientId = await register(LOOPBACK);
  // 20 codes per requester and hour whatever the address: the 21st is refused.
  for (let i = 0; i < 20; i++) t.is((await requestCode(clientId, `nobody-${i}@example.test`, '203.0.113.77')).status, 200, `code ${i + 1}`);
  t.is((await requestCode(clientId, 'nobody-20@example.test', '203.0.113.77')).status, 429);
  // 30 codes per address and hour over all requesters: six requesters with five each use it up.
  const target = await inviteUser(gw, 'capped');
  for (let r = 0; r < 6; r++)
    for (let i = 0; i < 5; i++) t.is((await requestCode(clientId, target.email, `192.0.2.${r + 10}`)).status, 200, `requester ${r}, code ${i + 1}`);
  t.is((await requestCode(clientId, target.email, '192.0.2.99')).status, 429, 'the address-wide cap');
});

test('errors of a dynamically registered client go to its redirect URI only when it is loopback; an https one gets the page (issue 24)', async (t) => {
  const evil = await register('https://evil.example/cb');
  for (const extra of [{ response_type: 'token' }, { scope: 'admin:all' }, { code_challenge_method: 'plain' }, { resource: 'https://other.example/' }]) {
    const res = await fetch(authorizeUrl(evil, 'https://evil.example/cb', extra), { redirect: 'manual' });
    t.is(res.status, 400, JSON.stringify(extra));
    t.is(res.headers.get('location'), null);
    t.regex(res.headers.get('content-type') ?? '', /text\/html/);
    t.regex(await res.text(), /Nothing was sent to the application/);
  }
  const local = await register(LOOPBACK);
  const res = await fetch(authorizeUrl(local, LOOPBACK, { response_type: 'token' }), { redirect: 'manual' });
  t.is(res.status, 302);
  t.is(new URL(res.headers.get('location')!).searchParams.get('error'), 'unsupported_response_type');
  // A valid request of the https client still shows the sign-in page (and, after consent, redirects).
  const ok = await fetch(authorizeUrl(evil, 'https://evil.example/cb'), { redirect: 'manual' });
  t.is(ok.status, 200);
  t.regex(await ok.text(), /Sign in/);
});

const form = { 'content-type': 'application/x-www-form-urlencoded' };

test("every error of the token, revocation and registration endpoints is RFC 6749 JSON with its status codes, including the kernel's own (issue 24)", async (t) => {
  const cases: [string, string, RequestInit, number, string][] = [
    ['415', '/oauth/token', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'grant_type=x' }, 400, 'invalid_request'],
    ['413', '/oauth/token', { method: 'POST', headers: form, body: `grant_type=${'a'.repeat(5000)}` }, 400, 'invalid_request'],
    ['NUL', '/oauth/token', { method: 'POST', headers: form, body: 'grant_type=authorization_code&code=a%00b' }, 400, 'invalid_request'],
    ['malformed JSON', '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grant_type":' }, 400, 'invalid_request'],
    ['405', '/oauth/token', { method: 'GET' }, 400, 'invalid_request'],
    ['415', '/oauth/revoke', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'token=x' }, 400, 'invalid_request'],
    ['NUL', '/oauth/revoke', { method: 'POST', headers: form, body: 'token=a%00b' }, 400, 'invalid_request'],
    ['415', '/oauth/register', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 400, 'invalid_client_metadata'],
    [
      'NUL',
      '/oauth/register',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'a\u0000b', redirect_uris: [LOOPBACK] }) },
      400,
      'invalid_client_metadata',
    ],
    [
      '413',
      '/oauth/register',
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'x'.repeat(5000) }) },
      400,
      'invalid_client_metadata',
    ],
    ['404', '/oauth/nothing-here', { method: 'GET' }, 404, 'invalid_request'],
    ['405', '/oauth/register', { method: 'DELETE' }, 400, 'invalid_request'],
  ];
  for (const [label, path, init, status, error] of cases) {
    const res = await fetch(`${gw.url}${path}`, init);
    const what = `${label} ${init.method} ${path}`;
    t.is(res.status, status, what);
    t.regex(res.headers.get('content-type') ?? '', /application\/json/, what);
    t.is(res.headers.get('cache-control'), 'no-store', what);
    const body = (await res.json()) as Record<string, unknown>;
    t.is(body['error'], error, what);
    t.is(typeof body['error_description'], 'string', what);
    t.false('message' in body, `${what}: not the REST envelope`);
  }
});

test('kernel errors on the authorization pages are the HTML error page, never a redirect or JSON (issue 24)', async (t) => {
  const cases: [string, RequestInit, number][] = [
    ['/oauth/authorize', { method: 'POST', headers: form, body: 'a=b' }, 405],
    ['/oauth/authorize/email', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'email=x' }, 415],
    ['/oauth/authorize/email', { method: 'POST', headers: form, body: 'email=a%00b' }, 400],
    ['/oauth/authorize/verify', { method: 'POST', headers: form, body: `code=${'1'.repeat(5000)}` }, 413],
    ['/oauth/authorize/nothing', { method: 'GET' }, 404],
  ];
  for (const [path, init, status] of cases) {
    const res = await fetch(`${gw.url}${path}`, { ...init, redirect: 'manual' });
    t.is(res.status, status, path);
    t.is(res.headers.get('location'), null, path);
    t.regex(res.headers.get('content-type') ?? '', /text\/html/, path);
    t.regex(res.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    t.regex(await res.text(), /<h1>/, path);
  }
  // Outside /oauth the REST envelope is unchanged.
  const rest = await fetch(`${gw.url}/api/v1/nothing-here`);
  t.is(rest.status, 404);
  t.is(((await rest.json()) as Record<string, unknown>)['error_code'], 'not_found');
});

import { createHash, randomBytes } from 'node:crypto';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { ALL_SCOPES, MailSink, WebClient, authorizeInBrowser, hiddenFields, inviteUser, startOAuthKernel } from './helpers.js';

let gw: TestKernel;
let sink: MailSink;
let resource: string;
test.before(async () => {
  sink = await MailSink.start();
  gw = await startOAuthKernel(sink);
  resource = `${gw.url}/api/mcp/transport`;
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const REDIRECT = 'http://127.0.0.1:41234/callback';
const verifierPair = () => {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function registerClient(options: { confidential?: boolean; redirect?: string } = {}): Promise<{ clientId: string; secret?: string }> {
  const res = await fetch(`${gw.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'hostile',
      redirect_uris: [options.redirect ?? REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: options.confidential ? 'client_secret_post' : 'none',
    }),
  });
  const body = (await res.json()) as { client_id: string; client_secret?: string };
  return body.client_secret ? { clientId: body.client_id, secret: body.client_secret } : { clientId: body.client_id };
}

function authorizeUrl(params: Record<string, string | undefined>): URL {
  const url = new URL(`${gw.url}/oauth/authorize`);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url;
}

function baseParams(clientId: string, challenge: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    state: 'st-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource,
    ...extra,
  };
}

/** A new public client's authorization request opened in a new browser (`web`, at its first page `start`); `url` opens it again elsewhere. */
async function openAuthorize() {
  const { clientId } = await registerClient();
  const url = authorizeUrl(baseParams(clientId, verifierPair().challenge));
  const web = new WebClient();
  return { clientId, url, web, start: await web.get(url) };
}

/** A fresh code for a new user and client, through the pages. */
async function freshCode(options: { confidential?: boolean; scope?: string; redirect?: string; registered?: string } = {}) {
  const client = await registerClient({
    ...(options.confidential ? { confidential: true } : {}),
    ...(options.registered ? { redirect: options.registered } : {}),
  });
  const user = await inviteUser(gw, 'hostile');
  const pkce = verifierPair();
  const redirect = options.redirect ?? REDIRECT;
  const back = await authorizeInBrowser(
    new WebClient(),
    gw.url,
    authorizeUrl(baseParams(client.clientId, pkce.challenge, { redirect_uri: redirect, scope: options.scope })),
    user.email,
    sink,
  );
  const code = back.searchParams.get('code');
  if (!code) throw new Error(`no code: ${back.href}`);
  return { client, user, code, back, redirect, ...pkce };
}

async function token(form: Record<string, string | undefined>, headers: Record<string, string> = {}) {
  const body = new URLSearchParams(Object.entries(form).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  const res = await fetch(`${gw.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

const exchange = (c: Awaited<ReturnType<typeof freshCode>>, overrides: Record<string, string | undefined> = {}) =>
  token({
    grant_type: 'authorization_code',
    code: c.code,
    redirect_uri: c.redirect,
    client_id: c.client.clientId,
    client_secret: c.client.secret,
    code_verifier: c.verifier,
    resource,
    ...overrides,
  });

const liveTokens = async (clientId: string) =>
  Number((await gw.kernel.cradle.db('oauth_access_tokens').where({ client_id: clientId }).whereNull('revoked_at').count({ n: '*' }))[0]!.n);

test('authorize errors before the redirect URI is known are pages, never redirects', async (t) => {
  const { clientId } = await registerClient();
  const { challenge } = verifierPair();
  const cases: [Record<string, string | undefined>, RegExp][] = [
    [baseParams('01ARZ3NDEKTSV4RRFFQ69G5FAV', challenge), /Unknown client_id/],
    [baseParams('not-a-client', challenge), /Unknown client_id/],
    [baseParams('', challenge), /client_id is required/],
    [baseParams(clientId, challenge, { redirect_uri: 'http://127.0.0.1:41234/other' }), /invalid_redirect_uri/],
    [baseParams(clientId, challenge, { redirect_uri: 'https://evil.example/callback' }), /invalid_redirect_uri/],
    [baseParams(clientId, challenge, { redirect_uri: undefined }), /redirect_uri is required/],
  ];
  for (const [params, message] of cases) {
    const res = await fetch(authorizeUrl(params), { redirect: 'manual' });
    t.is(res.status, 400, JSON.stringify(params));
    t.is(res.headers.get('location'), null);
    t.regex(res.headers.get('content-type') ?? '', /text\/html/);
    t.regex(await res.text(), message);
  }
  const dup = authorizeUrl(baseParams(clientId, challenge));
  dup.searchParams.append('redirect_uri', 'https://evil.example/cb');
  const res = await fetch(dup, { redirect: 'manual' });
  t.is(res.status, 400);
  t.is(res.headers.get('location'), null);
});

test('authorize errors after the redirect URI is validated go back to it with error, state and iss', async (t) => {
  const { clientId } = await registerClient();
  const { challenge } = verifierPair();
  const cases: [Record<string, string | undefined>, string, RegExp?][] = [
    [{ response_type: 'token' }, 'unsupported_response_type'],
    [{ code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) }, 'invalid_request', /plain/],
    [{ code_challenge_method: undefined }, 'invalid_request', /S256/],
    [{ code_challenge: undefined }, 'invalid_request'],
    [{ code_challenge: 'short' }, 'invalid_request'],
    [{ resource: undefined }, 'invalid_target'],
    [{ resource: 'https://other.example/api/mcp/transport' }, 'invalid_target'],
    [{ resource: `${resource}/` }, 'invalid_target'],
    [{ scope: 'invoices:read invoices:write' }, 'invalid_scope'],
    [{ scope: 'admin:all' }, 'invalid_scope'],
    [{ scope: 'sandbox:simulate' }, 'invalid_scope'],
  ];
  for (const [extra, error, description] of cases) {
    const res = await fetch(authorizeUrl(baseParams(clientId, challenge, { state: 'a b&c=d', ...extra })), { redirect: 'manual' });
    t.is(res.status, 302, JSON.stringify(extra));
    const location = new URL(res.headers.get('location')!);
    t.is(`${location.origin}${location.pathname}`, REDIRECT);
    t.is(location.searchParams.get('error'), error, JSON.stringify(extra));
    t.is(location.searchParams.get('state'), 'a b&c=d');
    t.is(location.searchParams.get('iss'), gw.url);
    t.is(location.searchParams.get('code'), null);
    if (description) t.regex(location.searchParams.get('error_description') ?? '', description);
  }
  const nul = await fetch(authorizeUrl(baseParams(clientId, challenge, { state: 'a\u0000b' })), { redirect: 'manual' });
  t.is(nul.status, 302);
  t.is(new URL(nul.headers.get('location')!).searchParams.get('error'), 'invalid_request');
  t.is(new URL(nul.headers.get('location')!).searchParams.get('state'), null);
  const dupState = authorizeUrl(baseParams(clientId, challenge));
  dupState.searchParams.append('state', 'two');
  const res = await fetch(dupState, { redirect: 'manual' });
  t.is(new URL(res.headers.get('location')!).searchParams.get('error'), 'invalid_request');
});

test('denial redirects with error=access_denied and the state; no code exists', async (t) => {
  const { clientId } = await registerClient();
  const user = await inviteUser(gw, 'deny');
  const { challenge } = verifierPair();
  const back = await authorizeInBrowser(new WebClient(), gw.url, authorizeUrl(baseParams(clientId, challenge, { state: 'keep-me' })), user.email, sink, 'deny');
  t.is(back.searchParams.get('error'), 'access_denied');
  t.is(back.searchParams.get('state'), 'keep-me');
  t.is(back.searchParams.get('code'), null);
  t.is((await gw.kernel.cradle.db('oauth_codes').where({ client_id: clientId })).length, 0);
  t.is((await gw.kernel.cradle.db('oauth_consents').where({ client_id: clientId })).length, 0);
});

test('an unknown e-mail gets the same pages, no mail, can never finish, and no account is created', async (t) => {
  const { url, web, start } = await openAuthorize();
  const invited = await inviteUser(gw, 'known');
  const strangerPage = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email: 'stranger@example.test' });
  const web2 = new WebClient();
  const start2 = await web2.get(url);
  const knownPage = await web2.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start2.text), email: invited.email });
  t.is(strangerPage.status, knownPage.status);
  const strip = (html: string) => html.replace(/value="[^"]*"/g, 'value=""');
  t.is(strip(strangerPage.text), strip(knownPage.text), 'identical pages apart from form tokens');
  await sink.nextCode(invited.email);
  t.is(sink.count('stranger@example.test'), 0);
  for (const code of ['000000', '123456', '999999']) {
    const page = await web.post(`${gw.url}/oauth/authorize/verify`, { ...hiddenFields(strangerPage.text), code });
    t.is(page.status, 400);
    t.false(page.text.includes('Allow access'));
  }
  t.is(await gw.kernel.cradle.tenancyUsers.find('stranger@example.test'), undefined);
  t.false((await gw.kernel.cradle.tenancyUsers.list()).some((u) => u.email === 'stranger@example.test'));
});

test('sign-in codes: wrong entries are bounded, an expired code fails, codes are stored hashed', async (t) => {
  const user = await inviteUser(gw, 'codes');
  const { web, start } = await openAuthorize();
  let page = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email: user.email });
  const fields = hiddenFields(page.text);
  const code = await sink.nextCode(user.email);
  const wrong = code === '000000' ? '111111' : '000000';
  t.is((await gw.kernel.cradle.db('oauth_email_challenges').where({ id: fields['challenge'] }).first()).code_hash.includes(code), false);
  for (let i = 0; i < 4; i++) {
    page = await web.post(`${gw.url}/oauth/authorize/verify`, { ...fields, code: wrong });
    t.is(page.status, 400);
    t.regex(page.text, /not valid/);
  }
  page = await web.post(`${gw.url}/oauth/authorize/verify`, { ...fields, code: wrong });
  t.regex(page.text, /Too many wrong codes/);
  // The right code no longer helps: five wrong entries killed the challenge.
  page = await web.post(`${gw.url}/oauth/authorize/verify`, { ...fields, code });
  t.regex(page.text, /Too many wrong codes/);

  // A new code, expired before it is entered (moved in the database, no waiting).
  page = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email: user.email });
  const second = hiddenFields(page.text);
  const code2 = await sink.nextCode(user.email);
  await gw.kernel.cradle
    .db('oauth_email_challenges')
    .where({ id: second['challenge'] })
    .update({ expires_at: gw.kernel.cradle.db.raw(`now() - interval '1 second'`) });
  page = await web.post(`${gw.url}/oauth/authorize/verify`, { ...second, code: code2 });
  t.regex(page.text, /expired/);
});

test('the forms need the session cookie and its CSRF token, and a request of the same session', async (t) => {
  const user = await inviteUser(gw, 'csrf');
  const { clientId, url, web, start } = await openAuthorize();
  t.regex(start.headers.get('set-cookie') ?? '', /^gw_oauth_session=[A-Za-z0-9_-]{43}; Path=\/oauth; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
  t.is(start.headers.get('x-frame-options'), 'DENY');
  t.regex(start.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
  const fields = hiddenFields(start.text);
  const forged = await web.post(`${gw.url}/oauth/authorize/email`, { ...fields, csrf: 'x'.repeat(43), email: user.email });
  t.is(forged.status, 403);
  const noToken = await web.post(`${gw.url}/oauth/authorize/email`, { request: fields['request']!, email: user.email });
  t.is(noToken.status, 403);
  const cookieless = await new WebClient().post(`${gw.url}/oauth/authorize/email`, { ...fields, email: user.email });
  t.is(cookieless.status, 400);
  t.regex(cookieless.text, /Session expired/);
  // Another browser's own session and token cannot answer this browser's request.
  const other = new WebClient();
  const otherStart = await other.get(url);
  const crossed = await other.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(otherStart.text), request: fields['request']!, email: user.email });
  t.regex(crossed.text, /Request expired/);
  t.is(sink.count(user.email), 0, 'no mail for refused forms');
  // A consent POST before signing in is refused.
  const early = await web.post(`${gw.url}/oauth/authorize/consent`, { ...fields, decision: 'approve' });
  t.is(early.status, 403);
  t.is((await gw.kernel.cradle.db('oauth_codes').where({ client_id: clientId })).length, 0);
});

test('code exchange: wrong verifier, mismatched redirect or resource all fail and burn the code; no token is left', async (t) => {
  const cases: [Record<string, string | undefined>, number, string][] = [
    [{ code_verifier: 'W'.repeat(43) }, 400, 'invalid_grant'],
    [{ redirect_uri: 'http://127.0.0.1:41234/callback/x' }, 400, 'invalid_grant'],
    // The code was issued for another resource than the token request names (spec 5.4 rule 6).
    [{ resource }, 400, 'invalid_target'],
  ];
  for (const [overrides, status, error] of cases) {
    const c = await freshCode();
    if (error === 'invalid_target')
      await gw.kernel.cradle.db('oauth_codes').where({ client_id: c.client.clientId }).update({ resource: 'https://old.example/api/mcp/transport' });
    const res = await exchange(c, overrides);
    t.is(res.status, status, JSON.stringify(overrides));
    t.is(res.body['error'], error);
    t.is(res.headers.get('cache-control'), 'no-store');
    // The right request afterwards gets nothing: the code was single-use and is gone.
    const retry = await exchange(c);
    t.is(retry.body['error'], 'invalid_grant');
    t.is(await liveTokens(c.client.clientId), 0);
  }
});

test('code exchange: malformed inputs are invalid_request or invalid_target and do not burn the code', async (t) => {
  const c = await freshCode();
  const cases: [Record<string, string | undefined>, string][] = [
    [{ code_verifier: 'a'.repeat(42) }, 'invalid_request'],
    [{ code_verifier: 'a'.repeat(129) }, 'invalid_request'],
    [{ code_verifier: `${'a'.repeat(42)}+` }, 'invalid_request'],
    [{ code_verifier: undefined }, 'invalid_request'],
    [{ redirect_uri: undefined }, 'invalid_request'],
    [{ resource: undefined }, 'invalid_target'],
    [{ resource: `${resource}/` }, 'invalid_target'],
    [{ resource: 'https://other.example/api/mcp/transport' }, 'invalid_target'],
    [{ grant_type: undefined }, 'invalid_request'],
    [{ grant_type: 'password' }, 'unsupported_grant_type'],
    [{ grant_type: 'client_credentials' }, 'unsupported_grant_type'],
    [{ code: 'oac_short' }, 'invalid_grant'],
    [{ code: `oac_${'A'.repeat(32)}` }, 'invalid_grant'],
  ];
  for (const [overrides, error] of cases) {
    const res = await exchange(c, overrides);
    t.is(res.status, 400, JSON.stringify(overrides));
    t.is(res.body['error'], error, JSON.stringify(overrides));
  }
  const dup = await fetch(`${gw.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=authorization_code&code=${c.code}&code=${c.code}`,
  });
  t.like(await dup.json(), { error: 'invalid_request' });
  const asJson = await fetch(`${gw.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'authorization_code', code: c.code }),
  });
  t.is(asJson.status, 400);
  t.like(await asJson.json(), { error: 'invalid_request' });
  const ok = await exchange(c);
  t.is(ok.status, 200);
  t.is(ok.body['scope'], ALL_SCOPES, 'scope omitted: all four OAuth scopes');
});

test('an expired code fails; a reused code fails and revokes the tokens issued from it', async (t) => {
  const expired = await freshCode();
  await gw.kernel.cradle
    .db('oauth_codes')
    .where({ client_id: expired.client.clientId })
    .update({ expires_at: gw.kernel.cradle.db.raw(`now() - interval '1 second'`) });
  t.is((await exchange(expired)).body['error'], 'invalid_grant');
  t.is(await liveTokens(expired.client.clientId), 0);

  const c = await freshCode();
  const first = await exchange(c);
  t.is(first.status, 200);
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(first.body['access_token']), { ok: true });
  const again = await exchange(c);
  t.is(again.status, 400);
  t.is(again.body['error'], 'invalid_grant');
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(first.body['access_token']), { ok: false, reason: 'lineage_revoked' });
  const refreshed = await token({ grant_type: 'refresh_token', refresh_token: first.body['refresh_token'], client_id: c.client.clientId, resource });
  t.is(refreshed.body['error'], 'invalid_grant');
  t.is(
    (
      await gw.kernel.cradle
        .db('kernel_audit_log')
        .where({ action: 'oauth.code.reuse_detected' })
        .whereRaw(`actor = ?`, [`oauth_client:${c.client.clientId}`])
    ).length,
    1,
  );
});

test('client authentication: unknown client, another client, wrong or missing secret, secrets on public clients, Basic auth', async (t) => {
  const c = await freshCode({ confidential: true });
  const other = await registerClient();
  const cases: [Record<string, string | undefined>, number, string, Record<string, string>?][] = [
    [{ client_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', client_secret: undefined }, 401, 'invalid_client'],
    [{ client_id: undefined, client_secret: undefined }, 401, 'invalid_client'],
    [{ client_secret: 'wrong' }, 401, 'invalid_client'],
    [{ client_secret: undefined }, 401, 'invalid_client'],
    [{ client_id: other.clientId, client_secret: 'anything' }, 401, 'invalid_client'],
    [{ client_id: other.clientId, client_secret: undefined }, 400, 'invalid_grant'],
    [
      { client_secret: undefined },
      401,
      'invalid_client',
      { authorization: `Basic ${Buffer.from(`${c.client.clientId}:${c.client.secret}`).toString('base64')}` },
    ],
  ];
  for (const [overrides, status, error, headers] of cases) {
    const res = headers
      ? await token(
          { grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirect, client_id: c.client.clientId, code_verifier: c.verifier, resource },
          headers,
        )
      : await exchange(c, overrides);
    t.is(res.status, status, JSON.stringify(overrides));
    t.is(res.body['error'], error, JSON.stringify(overrides));
  }
  // None of those burnt the code: the right client still exchanges it.
  const ok = await exchange(c);
  t.is(ok.status, 200);
});

test('refresh: resource must match, scopes may only narrow, expired refresh tokens fail, expired access tokens are refused', async (t) => {
  const c = await freshCode({ scope: 'invoices:read webhooks:read' });
  const issued = (await exchange(c)).body;
  t.is(issued['scope'], 'invoices:read webhooks:read');
  const refresh = (extra: Record<string, string | undefined>) =>
    token({ grant_type: 'refresh_token', refresh_token: issued['refresh_token'], client_id: c.client.clientId, resource, ...extra });
  t.is((await refresh({ resource: undefined })).body['error'], 'invalid_target');
  t.is((await refresh({ resource: 'https://other.example/api/mcp/transport' })).body['error'], 'invalid_target');
  t.is((await refresh({ scope: 'invoices:read projects:read' })).body['error'], 'invalid_scope');
  t.is((await refresh({ refresh_token: `svc_ort_${'b'.repeat(32)}` })).body['error'], 'invalid_grant');
  t.is((await refresh({ refresh_token: 'garbage' })).body['error'], 'invalid_grant');
  t.is((await refresh({ refresh_token: undefined })).body['error'], 'invalid_request');
  const narrowed = await refresh({ scope: 'webhooks:read' });
  t.is(narrowed.status, 200);
  t.is(narrowed.body['scope'], 'webhooks:read');
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(narrowed.body['access_token']), { ok: true, scopes: ['webhooks:read'] });

  const db = gw.kernel.cradle.db;
  await db('oauth_refresh_tokens')
    .where({ client_id: c.client.clientId })
    .whereNull('consumed_at')
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  const late = await token({ grant_type: 'refresh_token', refresh_token: narrowed.body['refresh_token'], client_id: c.client.clientId, resource });
  t.is(late.body['error'], 'invalid_grant');
  t.regex(late.body['error_description'], /expired/);
  await db('oauth_access_tokens')
    .where({ client_id: c.client.clientId })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(narrowed.body['access_token']), { ok: false, reason: 'expired' });
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(`svc_oat_${'c'.repeat(32)}`), { ok: false, reason: 'unknown' });
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken('svc_pat_whatever'), { ok: false, reason: 'unknown' });
});

test("revocation is always 200 with an empty body and only touches the presenting client's tokens", async (t) => {
  const c = await freshCode();
  const issued = (await exchange(c)).body;
  const other = await registerClient();
  const revoke = async (form: Record<string, string>) => {
    const res = await fetch(`${gw.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    return { status: res.status, text: await res.text() };
  };
  for (const form of [
    { token: 'unknown', client_id: c.client.clientId },
    { token: issued['access_token'], client_id: other.clientId },
    { token: issued['refresh_token'], client_id: other.clientId },
    { token: issued['access_token'] },
    {},
  ]) {
    const res = await revoke(form as Record<string, string>);
    t.deepEqual(res, { status: 200, text: '' }, JSON.stringify(form));
  }
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(issued['access_token']), { ok: true });
  t.deepEqual(await revoke({ token: issued['access_token'], token_type_hint: 'access_token', client_id: c.client.clientId }), { status: 200, text: '' });
  t.like(await gw.kernel.cradle.oauthTokens.verifyAccessToken(issued['access_token']), { ok: false, reason: 'revoked' });
  t.deepEqual(await revoke({ token: issued['access_token'], client_id: c.client.clientId }), { status: 200, text: '' }, 'twice is fine');
});

test('a loopback redirect URI may use another port; the token request must repeat the authorize one', async (t) => {
  const c = await freshCode({ registered: 'http://127.0.0.1:1111/cb', redirect: 'http://127.0.0.1:2222/cb' });
  t.is(c.back.port, '2222');
  t.is((await exchange(c, { redirect_uri: 'http://127.0.0.1:1111/cb' })).body['error'], 'invalid_grant');
  const again = await freshCode({ registered: 'http://127.0.0.1:1111/cb', redirect: 'http://127.0.0.1:3333/cb' });
  t.is((await exchange(again)).status, 200);
});

test('a hostile e-mail (a@ + 100,000 dots + @) is a validation error, and no pattern runs over input longer than an address (issue 26 finding 1)', async (t) => {
  const { web, start } = await openAuthorize();
  const hostile = `a@${'.'.repeat(100_000)}@`;
  // Every pattern match goes through RegExp.prototype.exec (test, match, replace, split call it):
  // record the longest input a pattern of the sign-in service is applied to.
  const session = await gw.kernel.cradle.oauthSignIn.ensure(undefined, false);
  const applied: number[] = [];
  const exec = RegExp.prototype.exec;
  RegExp.prototype.exec = function (this: RegExp, input: string) {
    applied.push(String(input).length);
    return exec.call(this, input);
  };
  let result;
  try {
    result = await gw.kernel.cradle.oauthSignIn.start(session, hostile, 'hostile', '127.0.0.1');
  } finally {
    RegExp.prototype.exec = exec;
  }
  t.deepEqual(result, { problem: 'invalid_email' });
  t.true(
    applied.every((length) => length <= 254),
    `a pattern ran over ${Math.max(...applied)} characters`,
  );

  const page = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email: hostile });
  t.is(page.status, 400);
  t.regex(page.text, /Enter a valid e-mail address/);
  t.true(page.text.length < 50_000, 'the entry is not echoed in full');
  const health = await fetch(`${gw.url}/healthz`);
  t.is(health.status, 200);
  t.is(sink.count(hostile), 0);
});

import { createHash, randomBytes } from 'node:crypto';
import { CLI_ACTOR } from '@gw/kernel';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import {
  CERT_PEM,
  DocumentServer,
  MailSink,
  WebClient,
  authorizationUrl,
  authorizeInBrowser,
  hiddenFields,
  inviteUser,
  registerClient,
  startOAuthKernel,
} from './helpers.js';
import { stopAll } from '@gw/testing';

// Issue 24 item 4: one clock, the database's, for every expiry decision. The gateway runs in this
// process, so skewing this process's clock (Date.now) by two hours skews the gateway's; the
// expiries are set relative to PostgreSQL's now(). Serial: the skew is process-wide.
let gw: TestKernel, sink: MailSink, docs: DocumentServer, resource: string;
test.before(async () => {
  sink = await MailSink.start();
  docs = await DocumentServer.start();
  gw = await startOAuthKernel(sink, { 'plugins.oauth.clientDocuments.allowPrivateAddresses': true, 'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM });
  resource = `${gw.url}/api/mcp/transport`;
});
test.after.always(() => stopAll(gw, sink, docs));

const REDIRECT = 'http://127.0.0.1:41234/callback';
const TWO_HOURS = 2 * 3600 * 1000;

/** Runs `work` with this process's clock (`Date.now()` and `new Date()`) moved by `offsetMs`. */
async function skewed<T>(offsetMs: number, work: () => Promise<T>): Promise<T> {
  const RealDate = Date;
  class SkewedDate extends RealDate {
    constructor(...args: ConstructorParameters<DateConstructor> | []) {
      if (args.length === 0) super(RealDate.now() + offsetMs);
      else super(...(args as ConstructorParameters<DateConstructor>));
    }
    static override now(): number {
      return RealDate.now() + offsetMs;
    }
  }
  globalThis.Date = SkewedDate as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = RealDate;
  }
}

const register = () =>
  registerClient(gw.url, { redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' });

const authorizeUrl = (clientId: string, challenge: string): URL =>
  authorizationUrl(gw.url, { client_id: clientId, redirect_uri: REDIRECT, state: 'st', code_challenge: challenge, resource });

async function freshCode() {
  const clientId = await register();
  const user = await inviteUser(gw, 'clock');
  const verifier = randomBytes(48).toString('base64url');
  const back = await authorizeInBrowser(
    new WebClient(),
    gw.url,
    authorizeUrl(clientId, createHash('sha256').update(verifier).digest('base64url')),
    user.email,
    sink,
  );
  return { clientId, user, verifier, code: back.searchParams.get('code')! };
}

async function token(form: Record<string, string>) {
  const res = await fetch(`${gw.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const exchange = (c: Awaited<ReturnType<typeof freshCode>>) =>
  token({ grant_type: 'authorization_code', code: c.code, redirect_uri: REDIRECT, client_id: c.clientId, code_verifier: c.verifier, resource });
const hashOf = (value: string) => createHash('sha256').update(value).digest('hex');

test.serial('authorization codes: the database clock decides, whichever way the process clock is skewed', async (t) => {
  const { db } = gw.kernel.cradle;
  const expired = await freshCode();
  await db('oauth_codes')
    .where({ code_hash: hashOf(expired.code) })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  const late = await skewed(-TWO_HOURS, () => exchange(expired));
  t.is(late.status, 400);
  t.is(late.body['error'], 'invalid_grant');
  t.regex(late.body['error_description'], /expired/);
  const valid = await freshCode();
  const early = await skewed(+TWO_HOURS, () => exchange(valid));
  t.is(early.status, 200, JSON.stringify(early.body));
});

test.serial('refresh and access tokens: the database clock decides', async (t) => {
  const { db, oauthTokens } = gw.kernel.cradle;
  const c = await freshCode();
  const issued = (await exchange(c)).body;
  // Live by the database, expired by a process clock two hours ahead: still accepted.
  t.true((await skewed(+TWO_HOURS, () => oauthTokens.verifyAccessToken(issued['access_token']))).ok);
  const refreshed = await skewed(+TWO_HOURS, () =>
    token({ grant_type: 'refresh_token', refresh_token: issued['refresh_token'], client_id: c.clientId, resource }),
  );
  t.is(refreshed.status, 200, JSON.stringify(refreshed.body));
  // Expired by the database, live by a process clock two hours behind: refused.
  await db('oauth_access_tokens')
    .where({ token_hash: hashOf(refreshed.body['access_token']) })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  t.deepEqual(await skewed(-TWO_HOURS, () => oauthTokens.verifyAccessToken(refreshed.body['access_token'])), { ok: false, reason: 'expired' });
  await db('oauth_refresh_tokens')
    .where({ token_hash: hashOf(refreshed.body['refresh_token']) })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  const late = await skewed(-TWO_HOURS, () =>
    token({ grant_type: 'refresh_token', refresh_token: refreshed.body['refresh_token'], client_id: c.clientId, resource }),
  );
  t.is(late.status, 400);
  t.regex(late.body['error_description'], /expired/);
});

test.serial('sign-in codes: an expired challenge is expired on a process clock two hours behind', async (t) => {
  const { db } = gw.kernel.cradle;
  const clientId = await register();
  const user = await inviteUser(gw, 'clock-code');
  const web = new WebClient();
  const start = await web.get(authorizeUrl(clientId, createHash('sha256').update(randomBytes(48).toString('base64url')).digest('base64url')));
  const page = await web.post(`${gw.url}/oauth/authorize/email`, { ...hiddenFields(start.text), email: user.email });
  const fields = hiddenFields(page.text);
  const code = await sink.nextCode(user.email);
  await db('oauth_email_challenges')
    .where({ id: fields['challenge'] })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  const verified = await skewed(-TWO_HOURS, () => web.post(`${gw.url}/oauth/authorize/verify`, { ...fields, code }));
  t.regex(verified.text, /The code has expired/);
  t.false(verified.text.includes('action="/oauth/authorize/consent"'));
});

test.serial('client metadata documents: freshness is decided by the database clock', async (t) => {
  const { db } = gw.kernel.cradle;
  const clientId = docs.serve('/clock/doc.json', (o) => ({
    body: JSON.stringify({ client_id: `${o}/clock/doc.json`, redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  }));
  const fetches = () => docs.requests.filter((r) => r === '/clock/doc.json').length;
  const page = () => fetch(authorizeUrl(clientId, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'), { redirect: 'manual' }).then((r) => r.status);
  t.is(await page(), 200);
  t.is(fetches(), 1);
  // Fresh by the database (an hour left), stale by a process clock two hours ahead: not fetched.
  t.is(await skewed(+TWO_HOURS, page), 200);
  t.is(fetches(), 1);
  // Stale by the database, fresh by a process clock two hours behind: fetched again.
  await db('oauth_clients')
    .where({ client_id: clientId })
    .update({ document_expires_at: db.raw(`now() - interval '1 second'`) });
  t.is(await skewed(-TWO_HOURS, page), 200);
  t.is(fetches(), 2);
});

test.serial('personal access tokens (tenancy, the other MCP credential): the database clock decides', async (t) => {
  const { db, tenancyOperators, tenancyPats } = gw.kernel.cradle;
  const operator = await tenancyOperators.create(`op-clock-${randomBytes(3).toString('hex')}`, CLI_ACTOR);
  const pat = await tenancyPats.create({ scopes: ['projects:read'], operator: operator.id }, CLI_ACTOR);
  await db('tenancy_personal_access_tokens')
    .where({ id: pat.id })
    .update({ expires_at: db.raw(`now() + interval '1 hour'`) });
  t.truthy(await skewed(+TWO_HOURS, () => tenancyPats.verify(pat.token)), 'live by the database, expired by the process clock');
  await db('tenancy_personal_access_tokens')
    .where({ id: pat.id })
    .update({ expires_at: db.raw(`now() - interval '1 second'`) });
  t.is(await skewed(-TWO_HOURS, () => tenancyPats.verify(pat.token)), undefined, 'expired by the database, live by the process clock');
});

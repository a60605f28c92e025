import test from 'ava';
import { hashToken } from '@gw/kernel';
import * as oauth from 'oauth4webapi';
import type { TestKernel } from '@gw/kernel/testing';
import { cliRunner } from '@gw/testing';
import { ALL_SCOPES, CERT_PEM, DocumentServer, MailSink, OAUTH_PLUGINS, WebClient, authorizeInBrowser, inviteUser, startOAuthKernel } from './helpers.js';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const LEEWAY = 60;
let gw: TestKernel;
let sink: MailSink;
let docs: DocumentServer;
let as: oauth.AuthorizationServer;
let resource: string;

test.before(async () => {
  sink = await MailSink.start();
  docs = await DocumentServer.start();
  // The longest leeway, so a slow machine never turns a concurrent refresh into a replay.
  gw = await startOAuthKernel(sink, {
    'plugins.oauth.clientDocuments.allowPrivateAddresses': true,
    'plugins.oauth.clientDocuments.extraCaPem': CERT_PEM,
    'plugins.oauth.refreshLeewaySeconds': LEEWAY,
  });
  resource = `${gw.url}/api/mcp/transport`;
  // Discovery the way an MCP client does it: protected-resource metadata first, then the issuer's.
  const rs = await oauth.processResourceDiscoveryResponse(new URL(resource), await oauth.resourceDiscoveryRequest(new URL(resource), insecure));
  const issuer = new URL(rs.authorization_servers![0]!);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
  await docs?.close();
});

const cli = cliRunner({ plugins: OAUTH_PLUGINS, chains: [], databaseUrl: () => gw.database.url });

interface Registered {
  client: oauth.Client;
  auth: oauth.ClientAuth;
  redirectUri: string;
}

async function registerDynamic(kind: 'public' | 'confidential', grantTypes = ['authorization_code', 'refresh_token']): Promise<Registered> {
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const response = await oauth.dynamicClientRegistrationRequest(
    as,
    {
      client_name: `test ${kind}`,
      redirect_uris: [redirectUri],
      grant_types: grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: kind === 'public' ? 'none' : 'client_secret_post',
    },
    insecure,
  );
  const registered = await oauth.processDynamicClientRegistrationResponse(response);
  if (kind === 'public') return { client: { client_id: registered.client_id, token_endpoint_auth_method: 'none' }, auth: oauth.None(), redirectUri };
  return {
    client: { client_id: registered.client_id, token_endpoint_auth_method: 'client_secret_post' },
    auth: oauth.ClientSecretPost(String(registered['client_secret'])),
    redirectUri,
  };
}

/** The discovered authorization endpoint with a request of `reg` for every scope of the resource, with `state` and the S256 challenge of `verifier`. */
async function authorizationRequest(reg: Registered, state: string, verifier: string): Promise<URL> {
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: reg.client.client_id,
    redirect_uri: reg.redirectUri,
    scope: ALL_SCOPES,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    resource,
  }).toString();
  return url;
}

async function authorize(reg: Registered, email: string, web = new WebClient()): Promise<oauth.TokenEndpointResponse> {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = await authorizationRequest(reg, state, verifier);
  const back = await authorizeInBrowser(web, gw.url, url, email, sink);
  const params = oauth.validateAuthResponse(as, reg.client, back, state);
  const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, reg.redirectUri, verifier, {
    additionalParameters: { resource },
    ...insecure,
  });
  return oauth.processAuthorizationCodeResponse(as, reg.client, response);
}

const refresh = async (reg: Registered, token: string) =>
  oauth.processRefreshTokenResponse(
    as,
    reg.client,
    await oauth.refreshTokenGrantRequest(as, reg.client, reg.auth, token, { additionalParameters: { resource }, ...insecure }),
  );

async function refreshError(reg: Registered, token: string): Promise<string> {
  try {
    await refresh(reg, token);
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) return error.error;
    throw error;
  }
  throw new Error('refresh succeeded');
}

const revoke = async (reg: Registered, token: string, hint: string) =>
  oauth.processRevocationResponse(
    await oauth.revocationRequest(as, reg.client, reg.auth, token, { additionalParameters: { token_type_hint: hint }, ...insecure }),
  );

const verify = (token: string) => gw.kernel.cradle.oauthTokens.verifyAccessToken(token);

test('discovery: both metadata documents, the issuer equals authorization_servers[0], one resource string', async (t) => {
  t.is(as.issuer, gw.url);
  t.is(as.authorization_endpoint, `${gw.url}/oauth/authorize`);
  t.is(as.token_endpoint, `${gw.url}/oauth/token`);
  t.is(as.registration_endpoint, `${gw.url}/oauth/register`);
  t.is(as.revocation_endpoint, `${gw.url}/oauth/revoke`);
  t.deepEqual(as.code_challenge_methods_supported, ['S256']);
  t.deepEqual(as.token_endpoint_auth_methods_supported, ['none', 'client_secret_post']);
  t.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
  t.deepEqual(as.response_types_supported, ['code']);
  t.deepEqual(as.scopes_supported, ALL_SCOPES.split(' '));
  t.is(as['client_id_metadata_document_supported'], true);
  t.is(as['resource_documents_supported'], true);
  t.is(typeof as.service_documentation, 'string');
  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp/transport']) {
    const res = await fetch(`${gw.url}${path}`);
    t.is(res.status, 200, path);
    t.is(res.headers.get('access-control-allow-origin'), '*');
    const body = (await res.json()) as Record<string, unknown>;
    t.deepEqual(Object.keys(body).sort(), [
      'authorization_servers',
      'bearer_methods_supported',
      'resource',
      'resource_documentation',
      'resource_name',
      'resource_signing_alg_values_supported',
      'scopes_supported',
    ]);
    t.is(body['resource'], resource);
    t.deepEqual(body['authorization_servers'], [as.issuer]);
    t.deepEqual(body['bearer_methods_supported'], ['header']);
    t.deepEqual(body['resource_signing_alg_values_supported'], []);
    t.deepEqual(body['scopes_supported'], ALL_SCOPES.split(' '));
  }
  const raw = await (await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).text();
  const prm = await (await fetch(`${gw.url}/.well-known/oauth-protected-resource`)).text();
  // Byte for byte, as written on the wire.
  t.is(JSON.parse(raw).issuer, JSON.parse(prm).authorization_servers[0]);
});

test('CORS: metadata, register, token and revoke answer preflights and carry Access-Control-Allow-Origin', async (t) => {
  for (const path of [
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-protected-resource',
    '/.well-known/oauth-protected-resource/api/mcp/transport',
    '/oauth/register',
    '/oauth/token',
    '/oauth/revoke',
  ]) {
    const pre = await fetch(`${gw.url}${path}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    t.is(pre.status, 204, path);
    t.is(pre.headers.get('access-control-allow-origin'), '*', path);
    t.regex(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
    t.regex(pre.headers.get('access-control-allow-headers') ?? '', /Content-Type/i);
  }
  const token = await fetch(`${gw.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://app.example' },
    body: 'grant_type=password',
  });
  t.is(token.status, 400);
  t.is(token.headers.get('access-control-allow-origin'), '*');
  t.is(token.headers.get('cache-control'), 'no-store');
  t.like(await token.json(), { error: 'unsupported_grant_type' });
  const revoked = await fetch(`${gw.url}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'token=nothing',
  });
  t.is(revoked.status, 200);
  t.is(revoked.headers.get('access-control-allow-origin'), '*');
  t.is(await revoked.text(), '');
});

for (const kind of ['public', 'confidential'] as const) {
  test(`a ${kind} dynamic client: register, sign in by e-mailed code, consent, code, refresh with rotation, revoke`, async (t) => {
    const reg = await registerDynamic(kind);
    t.regex(reg.client.client_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    const user = await inviteUser(gw, kind);
    t.is((await gw.kernel.cradle.tenancyUsers.find(user.id))?.status, 'invited');
    const tokens = await authorize(reg, user.email);
    t.is((await gw.kernel.cradle.tenancyUsers.find(user.id))?.status, 'active', 'the first sign-in accepts the invitation');
    t.is(tokens.token_type, 'bearer');
    t.is(tokens.expires_in, 3600);
    t.is(tokens.scope, ALL_SCOPES);
    t.regex(tokens.access_token, /^svc_oat_[0-9A-Za-z]{32}$/);
    t.regex(tokens.refresh_token!, /^svc_ort_[0-9A-Za-z]{32}$/);
    const verified = await verify(tokens.access_token);
    t.like(verified, { ok: true, userId: user.id, clientId: reg.client.client_id, resource });
    t.deepEqual(verified.ok && [...verified.scopes], ALL_SCOPES.split(' '));

    // Only hashes are stored.
    const db = gw.kernel.cradle.db;
    t.is((await db('oauth_access_tokens').where('token_hash', hashToken(tokens.access_token))).length, 1);
    t.is((await db('oauth_refresh_tokens').where('token_hash', hashToken(tokens.refresh_token!))).length, 1);
    t.is((await db.raw(`select count(*)::int as n from oauth_access_tokens where token_hash like 'svc_%'`)).rows[0].n, 0);

    const next = await refresh(reg, tokens.refresh_token!);
    t.not(next.refresh_token, tokens.refresh_token);
    t.not(next.access_token, tokens.access_token);
    t.is(next.expires_in, 3600);
    t.like(await verify(next.access_token), { ok: true });
    // The first access token keeps working until it expires; rotation concerns refresh tokens.
    t.like(await verify(tokens.access_token), { ok: true });
    const refreshRow = await db('oauth_refresh_tokens').where({ client_id: reg.client.client_id }).whereNull('consumed_at').first();
    const days = (new Date(refreshRow.expires_at).getTime() - Date.now()) / 86_400_000;
    t.true(days > 29.9 && days <= 30, `refresh token expires in ${days} days`);

    // An access token revoked alone: its refresh token keeps working.
    await revoke(reg, next.access_token, 'access_token');
    t.like(await verify(next.access_token), { ok: false, reason: 'revoked' });
    const third = await refresh(reg, next.refresh_token!);
    t.like(await verify(third.access_token), { ok: true });

    // A refresh token revoked: every access token of its lineage goes with it.
    await revoke(reg, third.refresh_token!, 'refresh_token');
    t.like(await verify(third.access_token), { ok: false, reason: 'lineage_revoked' });
    t.like(await verify(tokens.access_token), { ok: false, reason: 'lineage_revoked' });
    t.is(await refreshError(reg, third.refresh_token!), 'invalid_grant');
  });
}

test('a client registered for authorization_code alone gets an access token and no refresh token it could not use', async (t) => {
  const reg = await registerDynamic('public', ['authorization_code']);
  const user = await inviteUser(gw, 'code-only');
  const tokens = await authorize(reg, user.email);
  t.like(await verify(tokens.access_token), { ok: true, clientId: reg.client.client_id });
  t.is(tokens.refresh_token, undefined);
});

test('a client metadata document client (HTTPS client_id URL) completes the flow; the document is cached', async (t) => {
  const redirectUri = 'http://localhost:8976/cb';
  const clientId = docs.serve('/clients/good.json', (origin) => ({
    body: JSON.stringify({
      client_id: `${origin}/clients/good.json`,
      client_name: 'Doc Client',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    }),
  }));
  const reg: Registered = { client: { client_id: clientId, token_endpoint_auth_method: 'none' }, auth: oauth.None(), redirectUri };
  const user = await inviteUser(gw, 'cimd');
  const tokens = await authorize(reg, user.email);
  t.like(await verify(tokens.access_token), { ok: true, clientId });
  const next = await refresh(reg, tokens.refresh_token!);
  t.like(await verify(next.access_token), { ok: true });
  t.is(docs.requests.filter((r) => r === '/clients/good.json').length, 1, 'fetched once, then served from the cache');
  const row = await gw.kernel.cradle.db('oauth_clients').where({ client_id: clientId }).first();
  t.is(row.kind, 'document');
  t.true(new Date(row.document_expires_at).getTime() > Date.now());
});

test('concurrent refreshes within the leeway get the same successor pair; the lineage stays alive', async (t) => {
  const reg = await registerDynamic('public');
  const user = await inviteUser(gw, 'leeway');
  const tokens = await authorize(reg, user.email);
  const [a, b, c] = await Promise.all([refresh(reg, tokens.refresh_token!), refresh(reg, tokens.refresh_token!), refresh(reg, tokens.refresh_token!)]);
  t.is(a.refresh_token, b.refresh_token);
  t.is(b.refresh_token, c.refresh_token);
  t.is(a.access_token, c.access_token);
  t.like(await verify(a.access_token), { ok: true });
  // The successor is usable, and the lineage goes on.
  const d = await refresh(reg, a.refresh_token!);
  t.like(await verify(d.access_token), { ok: true });
  t.is(
    (
      await gw.kernel.cradle
        .db('kernel_audit_log')
        .where({ action: 'oauth.refresh.replay_detected', target: `oauth_grant:${((await verify(d.access_token)) as { grantId: string }).grantId}` })
    ).length,
    0,
  );
});

test('replay after the leeway revokes the whole lineage synchronously and writes oauth.refresh.replay_detected', async (t) => {
  const reg = await registerDynamic('public');
  const user = await inviteUser(gw, 'replay');
  const tokens = await authorize(reg, user.email);
  const next = await refresh(reg, tokens.refresh_token!);
  const grant = (await verify(next.access_token)) as { grantId: string };
  // The rotation happened just outside the leeway: moved in the database, no waiting.
  await gw.kernel.cradle
    .db('oauth_refresh_tokens')
    .where({ grant_id: grant.grantId })
    .whereNotNull('consumed_at')
    .update({ consumed_at: gw.kernel.cradle.db.raw(`now() - make_interval(secs => ?)`, [LEEWAY + 1]) });
  t.is(await refreshError(reg, tokens.refresh_token!), 'invalid_grant');
  // Synchronous: by the time the error is answered, every token of the lineage is dead.
  t.like(await verify(next.access_token), { ok: false, reason: 'lineage_revoked' });
  t.like(await verify(tokens.access_token), { ok: false, reason: 'lineage_revoked' });
  t.is(await refreshError(reg, next.refresh_token!), 'invalid_grant');
  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ action: 'oauth.refresh.replay_detected', target: `oauth_grant:${grant.grantId}` });
  t.is(audit.length, 1);
  t.like(audit[0].details, { client_id: reg.client.client_id, user_id: user.id });
});

test('an older ancestor presented within the leeway is a replay (its successor was already rotated)', async (t) => {
  const reg = await registerDynamic('public');
  const user = await inviteUser(gw, 'ancestor');
  const first = await authorize(reg, user.email);
  const second = await refresh(reg, first.refresh_token!);
  const third = await refresh(reg, second.refresh_token!);
  t.is(await refreshError(reg, first.refresh_token!), 'invalid_grant');
  t.like(await verify(third.access_token), { ok: false, reason: 'lineage_revoked' });
  t.is(
    (
      await gw.kernel.cradle
        .db('kernel_audit_log')
        .where({ action: 'oauth.refresh.replay_detected' })
        .whereRaw(`details->>'client_id' = ?`, [reg.client.client_id])
    ).length,
    1,
  );
});

test('the leeway is per client: another client presenting the token gets invalid_grant and revokes nothing', async (t) => {
  const reg = await registerDynamic('public');
  const other = await registerDynamic('public');
  const user = await inviteUser(gw, 'otherclient');
  const tokens = await authorize(reg, user.email);
  t.is(await refreshError(other, tokens.refresh_token!), 'invalid_grant');
  t.like(await verify(tokens.access_token), { ok: true });
  const next = await refresh(reg, tokens.refresh_token!);
  t.like(await verify(next.access_token), { ok: true });
});

test('connected apps: the CLI lists and revokes every token and the consent; the next authorization asks for consent again', async (t) => {
  const reg = await registerDynamic('public');
  const user = await inviteUser(gw, 'apps');
  const web = new WebClient();
  const tokens = await authorize(reg, user.email, web);
  // Signed in with a consent on record: the next authorization is approved without a page.
  const again = await authorize(reg, user.email, web);
  t.like(await verify(again.access_token), { ok: true });

  const listed = await cli('oauth', 'apps', 'list', '--user', user.email, '--json');
  t.is(listed.code, 0, listed.stderr || listed.stdout);
  t.is(listed.json.apps.length, 1);
  t.like(listed.json.apps[0], { client_id: reg.client.client_id, client_name: 'test public', active_grants: 2, consent_revoked_at_iso: null });
  t.deepEqual(listed.json.apps[0].scopes, ALL_SCOPES.split(' '));

  const revoked = await cli('oauth', 'apps', 'revoke', '--user', user.id, '--client', reg.client.client_id, '--json');
  t.is(revoked.code, 0, revoked.stderr || revoked.stdout);
  t.like(revoked.json.revoked, { consent_revoked: true, grants_revoked: 2, access_tokens_revoked: 2, refresh_tokens_revoked: 2 });
  // Immediately, not eventually.
  t.like(await verify(tokens.access_token), { ok: false, reason: 'lineage_revoked' });
  t.like(await verify(again.access_token), { ok: false, reason: 'lineage_revoked' });
  t.is(await refreshError(reg, again.refresh_token!), 'invalid_grant');

  // The session is still signed in, but the consent is gone: the consent screen is rendered.
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: reg.client.client_id,
    redirect_uri: reg.redirectUri,
    state: 's',
    code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
    code_challenge_method: 'S256',
    resource,
  }).toString();
  const page = await web.get(url);
  t.is(page.status, 200);
  t.regex(page.text, /Allow access\?/);

  const listedAfter = await cli('oauth', 'apps', 'list', '--user', user.id, '--json');
  t.like(listedAfter.json.apps[0], { active_grants: 0 });
  t.not(listedAfter.json.apps[0].consent_revoked_at_iso, null);
  const unknown = await cli('oauth', 'apps', 'revoke', '--user', user.id, '--client', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--json');
  t.is(unknown.code, 1);
  t.is(unknown.json.error_code, 'oauth_app_not_found');
  const nobody = await cli('oauth', 'apps', 'list', '--user', 'nobody@example.test', '--json');
  t.is(nobody.code, 1);
  t.is(nobody.json.error_code, 'user_not_found');
});

test('a code issued before the connected app was revoked cannot be exchanged afterwards', async (t) => {
  const reg = await registerDynamic('public');
  const user = await inviteUser(gw, 'opencode');
  await authorize(reg, user.email);
  // A second authorization (auto-approved) leaves an unexchanged code; then the app is revoked.
  const verifier = oauth.generateRandomCodeVerifier();
  const url = await authorizationRequest(reg, 'open', verifier);
  const back = await authorizeInBrowser(new WebClient(), gw.url, url, user.email, sink);
  const params = oauth.validateAuthResponse(as, reg.client, back, 'open');
  t.truthy(await gw.kernel.cradle.oauthTokens.revokeApp(user.id, reg.client.client_id, { actor: 'operator-cli', channel: 'cli' }));
  const response = await oauth.authorizationCodeGrantRequest(as, reg.client, reg.auth, params, reg.redirectUri, verifier, {
    additionalParameters: { resource },
    ...insecure,
  });
  const error = await t.throwsAsync(oauth.processAuthorizationCodeResponse(as, reg.client, response));
  t.is((error as oauth.ResponseBodyError).error, 'invalid_grant');
  t.is((await gw.kernel.cradle.db('oauth_grants').where({ user_id: user.id, client_id: reg.client.client_id }).whereNull('revoked_at')).length, 0);
});

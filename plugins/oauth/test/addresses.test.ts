import test from 'ava';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { MailSink, OAUTH_PLUGINS, startOAuthKernel } from './helpers.js';

// A deployment behind a proxy: https base URL, MCP server at another origin with a path.
let gw: TestKernel;
let sink: MailSink;
test.before(async () => {
  sink = await MailSink.start();
  gw = await startOAuthKernel(sink, { 'http.baseUrl': 'https://gw.example.test/', 'plugins.oauth.mcpUrl': 'https://mcp.example.test/mcp' });
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

test('configured addresses: issuer, endpoints and the canonical resource come from http.baseUrl and plugins.oauth.mcpUrl', async (t) => {
  const as = (await (await fetch(`${gw.url}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;
  t.is(as['issuer'], 'https://gw.example.test');
  t.is(as['token_endpoint'], 'https://gw.example.test/oauth/token');
  for (const path of [
    '/mcp/.well-known/oauth-protected-resource',
    '/mcp/.well-known/oauth-protected-resource/api/mcp/transport',
    '/.well-known/oauth-protected-resource/mcp/api/mcp/transport',
  ]) {
    const res = await fetch(`${gw.url}${path}`);
    t.is(res.status, 200, path);
    const body = (await res.json()) as Record<string, unknown>;
    t.is(body['resource'], 'https://mcp.example.test/mcp/api/mcp/transport');
    t.deepEqual(body['authorization_servers'], [as['issuer']]);
    t.is((await fetch(`${gw.url}${path}`, { method: 'OPTIONS' })).status, 204);
  }
  const addresses = gw.kernel.cradle.oauthUrls.forRequest({ socket: { localPort: 1 } } as never);
  t.is(addresses.protectedResourceMetadataUrl, 'https://mcp.example.test/mcp/.well-known/oauth-protected-resource');
});

test('with an https base URL the session cookie is Secure, and the resource must be the configured one', async (t) => {
  const reg = await fetch(`${gw.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:5000/cb'], token_endpoint_auth_method: 'none' }),
  });
  const { client_id } = (await reg.json()) as { client_id: string };
  const params = {
    response_type: 'code',
    client_id,
    redirect_uri: 'http://127.0.0.1:5000/cb',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  };
  const ok = await fetch(`${gw.url}/oauth/authorize?${new URLSearchParams({ ...params, resource: 'https://mcp.example.test/mcp/api/mcp/transport' })}`, {
    redirect: 'manual',
  });
  t.is(ok.status, 200);
  t.regex(ok.headers.get('set-cookie') ?? '', /; HttpOnly; SameSite=Lax; Secure$/);
  const wrong = await fetch(`${gw.url}/oauth/authorize?${new URLSearchParams({ ...params, resource: `${gw.url}/api/mcp/transport` })}`, { redirect: 'manual' });
  t.is(new URL(wrong.headers.get('location')!).searchParams.get('error'), 'invalid_target');
  t.is(new URL(wrong.headers.get('location')!).searchParams.get('iss'), 'https://gw.example.test');
});

test('the client-document test seam is refused in production', async (t) => {
  await t.throwsAsync(
    startTestKernel({ plugins: OAUTH_PLUGINS, role: 'cli', config: { env: 'production', 'plugins.oauth.clientDocuments.allowPrivateAddresses': true } }),
    { message: /refused when env is production/ },
  );
});

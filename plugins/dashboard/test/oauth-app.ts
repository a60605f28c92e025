import { createHash, randomBytes } from 'node:crypto';
import { authorizeInBrowser, WebClient, type MailSink } from '@gw/plugin-oauth/testing';

/**
 * Connects an OAuth app for `email` the way an MCP client does: registration, authorization with
 * sign-in and consent, code exchange. Returns the client id and its tokens.
 */
export async function connectApp(
  baseUrl: string,
  email: string,
  sink: MailSink,
  name: string,
): Promise<{ clientId: string; accessToken: string; refreshToken: string }> {
  const redirectUri = 'http://127.0.0.1:53682/callback';
  const resource = `${baseUrl}/api/mcp/transport`;
  const registered = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }),
  });
  const { client_id: clientId } = (await registered.json()) as { client_id: string };
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${baseUrl}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: 'invoices:read',
    state: 'connect',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource,
  }).toString();
  const landed = await authorizeInBrowser(new WebClient(), baseUrl, url, email, sink);
  const code = landed.searchParams.get('code');
  if (!code) throw new Error(`no code: ${landed.href}`);
  const token = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    }).toString(),
  });
  const body = (await token.json()) as { access_token: string; refresh_token: string };
  if (!body.access_token) throw new Error(`token exchange failed: ${JSON.stringify(body)}`);
  return { clientId, accessToken: body.access_token, refreshToken: body.refresh_token };
}

/** Whether the refresh token still gets new tokens (false once the app is revoked). */
export async function refreshWorks(baseUrl: string, clientId: string, refreshToken: string): Promise<boolean> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: clientId,
      resource: `${baseUrl}/api/mcp/transport`,
    }).toString(),
  });
  return res.status === 200;
}

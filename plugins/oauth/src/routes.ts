import type { Context } from 'koa';
import Type from 'typebox';
import { trimTrailing, withDeps, withRetryAfter } from '@gw/kernel';
import type { RouteDefinition, RouteResult } from '@gw/kernel';
import { MAX_EMAIL_LENGTH } from '@gw/plugin-tenancy/contract';
import { CORS_HEADERS, NO_STORE, fail, isFailure, oauthErrorResult, type OAuthFailure } from './oauth-result.js';
import { clientLabel, codePage, consentPage, errorPage, lockedMessage, signInPage, type FormContext } from './pages.js';
import { parseScope } from './scopes.js';
import { clientRedirect, errorRedirectAllowed } from './services/authorization-service.js';
import { authorizationServerMetadata, protectedResourceMetadata, MCP_TRANSPORT_PATH, type OAuthAddresses } from './services/oauth-urls.js';
import { redirectUriMatches } from './services/redirect-uri.js';
import { SESSION_COOKIE, type BrowserSession } from './services/sign-in-service.js';
import { CHALLENGE_PATTERN, VERIFIER_PATTERN } from './tokens.js';
import type { AuthorizationRequestRow } from './models/authorization-request-row.js';

/**
 * What every route of the authorization server declares to the kernel: out of the API document
 * (it has its own metadata, RFC 8414), and no API authentication (OAuth authenticates its clients itself).
 */
const OAUTH_ROUTE = { tags: ['oauth'], hidden: true, auth: 'none' } as const satisfies Partial<RouteDefinition>;
/** Any body is read by hand (OAuth answers its own error shapes), so the schema admits anything. */
const ANY_BODY = Type.Unknown({ description: 'application/x-www-form-urlencoded (JSON for /oauth/register)' });
const MAX_STATE = 1024;
const PREFLIGHT: Record<string, string> = {
  ...CORS_HEADERS,
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, MCP-Protocol-Version',
  'Access-Control-Max-Age': '86400',
};

/** The form fields of a url-encoded body; a repeated field is a problem (RFC 6749 section 3.1). */
function formParams(ctx: Context): Map<string, string> | { problem: string } {
  if (ctx.request.rawBody.length > 0 && ctx.request.is('application/x-www-form-urlencoded') === false) {
    return { problem: 'The body must be application/x-www-form-urlencoded.' };
  }
  const out = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(ctx.request.rawBody)) {
    if (out.has(name)) return { problem: `${name} appears more than once.` };
    out.set(name, value);
  }
  return out;
}

function redirect(location: string, setCookie?: string): RouteResult {
  return { status: 302, headers: { Location: location, 'Cache-Control': 'no-store', ...(setCookie ? { 'Set-Cookie': setCookie } : {}) }, body: '' };
}

function json(body: unknown, status = 200): RouteResult {
  return { status, headers: { ...CORS_HEADERS, ...NO_STORE, 'Content-Type': 'application/json; charset=utf-8' }, body };
}

/** Routes of the authorization server: metadata, registration, authorize pages, token, revoke. */
export const oauthRoutes = withDeps(
  ['rateLimiter', 'oauthConfig', 'oauthUrls', 'oauthClients', 'oauthSignIn', 'oauthAuthorizations', 'oauthTokens', 'tenancyUsers'],
  (deps): RouteDefinition[] => {
    const {
      oauthConfig: config,
      oauthUrls: urls,
      oauthClients: clients,
      oauthSignIn: signIn,
      oauthAuthorizations: authz,
      oauthTokens: tokens,
      tenancyUsers: users,
    } = deps;
    const mcpPath = config.mcpUrl ? trimTrailing(new URL(config.mcpUrl).pathname, '/') : '';
    const resourceMetadataPaths = [`${mcpPath}/.well-known/oauth-protected-resource`, `${mcpPath}/.well-known/oauth-protected-resource${MCP_TRANSPORT_PATH}`];
    if (mcpPath) resourceMetadataPaths.push(`/.well-known/oauth-protected-resource${mcpPath}${MCP_TRANSPORT_PATH}`);
    const corsPaths = ['/.well-known/oauth-authorization-server', ...resourceMetadataPaths, '/oauth/register', '/oauth/token', '/oauth/revoke'];

    /** The session, CSRF check and open request every POST of the pages starts with; a page when any fails. */
    async function formPrelude(
      ctx: Context,
    ): Promise<
      | RouteResult
      | { ctx: Context; params: Map<string, string>; session: BrowserSession; request: AuthorizationRequestRow; form: FormContext; a: OAuthAddresses }
    > {
      const a = urls.forRequest(ctx);
      const params = formParams(ctx);
      if ('problem' in params) return errorPage('Invalid request', params.problem);
      const session = await signIn.find(ctx.cookies.get(SESSION_COOKIE));
      if (!session) return errorPage('Session expired', 'Your sign-in session has expired, or this browser does not keep cookies.');
      if (!signIn.checkCsrf(session, params.get('csrf'))) return errorPage('Form expired', 'The form expired or did not come from this site.', 403);
      const request = await authz.open(params.get('request'), session.row.id);
      if (!request) return errorPage('Request expired', 'This authorization request has expired or was already answered.');
      const client = await clients.find(request.client_id);
      const form: FormContext = {
        requestId: request.id,
        csrf: signIn.csrfToken(session),
        clientLabel: client ? clientLabel(client) : request.client_id,
        redirectUri: request.redirect_uri,
      };
      return { ctx, params, session, request, form, a };
    }

    type Prelude = Exclude<Awaited<ReturnType<typeof formPrelude>>, RouteResult>;

    /** A POST of the sign-in and consent pages: form parsing, session, request and CSRF checks first. */
    function pageForm(path: string, summary: string, handle: (prelude: Prelude) => Promise<RouteResult>): RouteDefinition {
      return {
        method: 'POST',
        path,
        summary,
        ...OAUTH_ROUTE,
        body: ANY_BODY,
        handler: async ({ ctx }) => {
          const prelude = await formPrelude(ctx);
          return 'params' in prelude ? handle(prelude) : prelude;
        },
      };
    }

    /** Signed in: auto-approve under a covering consent, else the consent page. */
    async function afterSignIn(
      request: AuthorizationRequestRow,
      session: BrowserSession,
      form: FormContext,
      a: OAuthAddresses,
    ): Promise<RouteResult | undefined> {
      const user = session.row.user_id ? await users.find(session.row.user_id) : undefined;
      if (!user || user.status === 'disabled') return undefined;
      if (await authz.consentCovers(user.id, request.client_id, request.scopes)) {
        const code = await authz.approve(request, user.id, true);
        if (!code) return errorPage('Request expired', 'This authorization request was already answered.');
        return redirect(clientRedirect(request.redirect_uri, { code, state: request.state, iss: a.baseUrl }), session.setCookie);
      }
      return consentPage(form, { email: user.email, scopes: request.scopes, redirectHost: new URL(request.redirect_uri).host });
    }

    const routes: RouteDefinition[] = [
      {
        method: 'GET',
        path: '/.well-known/oauth-authorization-server',
        summary: 'OAuth authorization-server metadata (RFC 8414).',
        ...OAUTH_ROUTE,
        handler: async ({ ctx }) => ({
          headers: { ...CORS_HEADERS, 'Cache-Control': 'public, max-age=300' },
          body: authorizationServerMetadata(urls.forRequest(ctx)),
        }),
      },
      ...resourceMetadataPaths.map((path): RouteDefinition => ({
        method: 'GET',
        path,
        summary: 'Protected-resource metadata of the MCP endpoint (RFC 9728).',
        ...OAUTH_ROUTE,
        handler: async ({ ctx }) => ({
          headers: { ...CORS_HEADERS, 'Cache-Control': 'public, max-age=300' },
          body: protectedResourceMetadata(urls.forRequest(ctx), config.resourceName),
        }),
      })),
      ...corsPaths.map((path): RouteDefinition => ({
        method: 'OPTIONS',
        path,
        summary: 'CORS preflight.',
        hidden: true,
        auth: 'none',
        handler: async () => ({ status: 204, headers: PREFLIGHT }),
      })),
      {
        method: 'POST',
        path: '/oauth/register',
        summary: 'Dynamic client registration (RFC 7591).',
        ...OAUTH_ROUTE,
        body: ANY_BODY,
        handler: async ({ ctx, requestId }) => {
          if (ctx.request.is('application/json', 'application/*+json') === false) {
            return oauthErrorResult(fail('invalid_client_metadata', 'The body must be application/json.'), requestId);
          }
          const result = await clients.register(ctx.request.body, ctx.ip, requestId);
          return isFailure(result) ? oauthErrorResult(result, requestId) : json(result, 201);
        },
      },
      {
        method: 'GET',
        path: '/oauth/authorize',
        summary: 'Authorization request (browser): sign-in and consent pages.',
        ...OAUTH_ROUTE,
        handler: async ({ ctx }) => {
          // Each request writes a session and a request row and may fetch a document: bounded per
          // client address (ctx.ip: X-Forwarded-For only with http.trustProxy), in PostgreSQL.
          const limit = await deps.rateLimiter.hit({ key: `oauth.authorize:ip:${ctx.ip}`, limit: config.authorizePerMinutePerIp, windowSeconds: 60 });
          if (!limit.allowed) {
            const refused = errorPage('Too many requests', `Too many authorization requests from this address. Try again in ${limit.retryAfter} seconds.`, 429);
            return withRetryAfter(refused, limit.retryAfter);
          }
          const a = urls.forRequest(ctx);
          const q = ctx.query;
          const single = (name: string): string | undefined | null => {
            const value = q[name];
            return Array.isArray(value) ? null : value;
          };
          const clientId = single('client_id');
          const redirectUri = single('redirect_uri');
          if (clientId === null || redirectUri === null) return errorPage('Invalid request', 'client_id and redirect_uri may appear only once.');
          const client = await clients.resolve(clientId);
          if (isFailure(client)) return errorPage('Unknown application', client.description);
          if (!redirectUri) return errorPage('Invalid request', 'redirect_uri is required.');
          if (!redirectUriMatches(client.redirect_uris, redirectUri)) {
            return errorPage('Invalid redirect URI', 'invalid_redirect_uri: the redirect_uri is not one this application registered. Nothing was sent to it.');
          }
          // From here on, errors go back to the client's redirect URI (RFC 6749 section 4.1.2.1) when
          // that URI is trusted; registration is open, so others get the page (no open redirector).
          const stateValue = single('state');
          const state = typeof stateValue === 'string' && stateValue.length <= MAX_STATE && !stateValue.includes('\u0000') ? stateValue : undefined;
          const redirectErrors = errorRedirectAllowed(client, redirectUri);
          const back = (failure: OAuthFailure) =>
            redirectErrors
              ? redirect(clientRedirect(redirectUri, { error: failure.error, error_description: failure.description, state, iss: a.baseUrl }))
              : errorPage('Invalid request', `${failure.error}: ${failure.description} Nothing was sent to the application.`);
          for (const name of ['response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource']) {
            const value = single(name);
            if (value === null) return back(fail('invalid_request', `${name} appears more than once.`));
            // PostgreSQL text cannot hold U+0000; such a value is malformed, not a 500.
            if (value?.includes('\u0000')) return back(fail('invalid_request', `${name} must not contain the NUL character.`));
          }
          if (typeof stateValue === 'string' && stateValue.length > MAX_STATE)
            return back(fail('invalid_request', `state is longer than ${MAX_STATE} characters.`));
          if (single('response_type') !== 'code') return back(fail('unsupported_response_type', 'response_type must be code.'));
          if (!client.grant_types.includes('authorization_code'))
            return back(fail('unauthorized_client', 'The client is not registered for authorization_code.'));
          const method = single('code_challenge_method');
          if (method !== 'S256') {
            return back(
              fail(
                'invalid_request',
                method === 'plain' ? 'PKCE method plain is not supported; use S256.' : 'code_challenge_method must be S256 (PKCE is mandatory).',
              ),
            );
          }
          const challenge = single('code_challenge');
          if (!challenge || !CHALLENGE_PATTERN.test(challenge))
            return back(fail('invalid_request', 'code_challenge must be base64url(SHA-256(code_verifier)), 43 characters.'));
          const resource = single('resource');
          if (!resource) return back(fail('invalid_target', `resource is required and must be ${a.resource}.`));
          if (resource !== a.resource) return back(fail('invalid_target', `resource must be ${a.resource}.`));
          const scope = parseScope(single('scope') ?? undefined);
          if ('unknown' in scope)
            return back(
              fail('invalid_scope', `Scope ${scope.unknown} cannot be granted over OAuth (projects:read, invoices:read, transactions:read, webhooks:read).`),
            );

          const session = await signIn.ensure(ctx.cookies.get(SESSION_COOKIE), a.secure);
          const request = await authz.create(session.row.id, {
            clientId: client.client_id,
            redirectUri,
            scopes: scope.scopes,
            state,
            codeChallenge: challenge,
            resource,
          });
          const form: FormContext = {
            requestId: request.id,
            csrf: signIn.csrfToken(session),
            clientLabel: clientLabel(client),
            redirectUri: request.redirect_uri,
            setCookie: session.setCookie,
          };
          return (await afterSignIn(request, session, form, a)) ?? signInPage(form);
        },
      },
      pageForm('/oauth/authorize/email', 'Sign-in step 1: send a one-time code to an invited address.', async (prelude) => {
        const { params, session, form } = prelude;
        const email = params.get('email') ?? '';
        const started = await signIn.start(session, email, form.clientLabel, prelude.ctx.ip);
        if ('challengeId' in started) return codePage(form, started.challengeId);
        // The form is shown again with the entry, but never more of it than an address can hold.
        if (started.problem === 'invalid_email')
          return signInPage(form, { error: 'Enter a valid e-mail address.', status: 400, email: email.slice(0, MAX_EMAIL_LENGTH) });
        if (started.problem === 'unavailable')
          return signInPage(form, { error: 'Sign-in by e-mail is not available on this gateway: no mail server is configured.', status: 503, email });
        const wait = 'retryAfter' in started ? started.retryAfter : 3600;
        return signInPage(form, { error: `Too many codes were requested. Try again in ${Math.max(1, Math.ceil(wait / 60))} minutes.`, status: 429, email });
      }),
      pageForm('/oauth/authorize/verify', 'Sign-in step 2: check the one-time code.', async (prelude) => {
        const { params, session, request, form, a } = prelude;
        const challenge = params.get('challenge') ?? '';
        const result = await signIn.verify(session, challenge, params.get('code'), params.get('operator'));
        if ('problem' in result) {
          if (result.problem === 'invalid')
            return codePage(form, challenge, { error: 'That code is not valid for this sign-in. Check the latest e-mail and try again.', status: 400 });
          if (result.problem === 'choose_operator') {
            return codePage(form, challenge, {
              error: 'Your address is a user of several operators. Choose one and enter the code again.',
              status: 400,
              operators: result.operators,
            });
          }
          if (result.problem === 'locked') {
            const locked = signInPage(form, { error: lockedMessage(result.retryAfter), status: 429 });
            return withRetryAfter(locked, result.retryAfter);
          }
          return signInPage(form, {
            error: result.problem === 'expired' ? 'The code has expired. Request a new one.' : 'Too many wrong codes. Request a new one.',
            status: 400,
          });
        }
        const signed = await signIn.signIn(session, result.userId, a.secure);
        const signedForm = { ...form, csrf: signIn.csrfToken(signed), setCookie: signed.setCookie };
        return (await afterSignIn(request, signed, signedForm, a)) ?? signInPage(signedForm, { error: 'This account cannot sign in.', status: 403 });
      }),
      pageForm('/oauth/authorize/consent', 'Consent: approve or deny the authorization request.', async (prelude) => {
        const { params, session, request, form, a } = prelude;
        const user = session.row.user_id ? await users.find(session.row.user_id) : undefined;
        if (!user || user.status === 'disabled') return signInPage(form, { error: 'Sign in first.', status: 403 });
        const decision = params.get('decision');
        if (decision === 'approve') {
          const code = await authz.approve(request, user.id, false);
          if (!code) return errorPage('Request expired', 'This authorization request was already answered.');
          return redirect(clientRedirect(request.redirect_uri, { code, state: request.state, iss: a.baseUrl }));
        }
        if (decision === 'deny') {
          if (!(await authz.deny(request))) return errorPage('Request expired', 'This authorization request was already answered.');
          return redirect(
            clientRedirect(request.redirect_uri, {
              error: 'access_denied',
              error_description: 'The user denied access.',
              state: request.state,
              iss: a.baseUrl,
            }),
          );
        }
        return errorPage('Invalid request', 'decision must be approve or deny.');
      }),
      {
        method: 'POST',
        path: '/oauth/token',
        summary: 'Token endpoint: authorization_code and refresh_token grants.',
        ...OAUTH_ROUTE,
        body: ANY_BODY,
        handler: async ({ ctx, requestId }) => {
          const a = urls.forRequest(ctx);
          const params = formParams(ctx);
          if ('problem' in params) return oauthErrorResult(fail('invalid_request', params.problem), requestId);
          if (ctx.get('authorization'))
            return oauthErrorResult(fail('invalid_client', 'Authenticate with client_secret_post (form fields), not an Authorization header.'), requestId);
          const grantType = params.get('grant_type');
          if (!grantType) return oauthErrorResult(fail('invalid_request', 'grant_type is required.'), requestId);
          if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
            return oauthErrorResult(fail('unsupported_grant_type', `grant_type ${grantType} is not supported.`), requestId);
          const client = await clients.resolve(params.get('client_id'));
          if (isFailure(client)) return oauthErrorResult(client, requestId);
          const authFailure = clients.authenticate(client, params.get('client_secret'));
          if (authFailure) return oauthErrorResult(authFailure, requestId);
          if (!client.grant_types.includes(grantType))
            return oauthErrorResult(fail('unauthorized_client', `The client is not registered for ${grantType}.`), requestId);
          const resource = params.get('resource');
          if (!resource) return oauthErrorResult(fail('invalid_target', `resource is required and must be ${a.resource}.`), requestId);
          if (resource !== a.resource) return oauthErrorResult(fail('invalid_target', `resource must be ${a.resource}.`), requestId);
          let result;
          if (grantType === 'authorization_code') {
            const code = params.get('code');
            const redirectUri = params.get('redirect_uri');
            const verifier = params.get('code_verifier');
            if (!code || !redirectUri || !verifier)
              return oauthErrorResult(fail('invalid_request', 'code, redirect_uri and code_verifier are required.'), requestId);
            if (!VERIFIER_PATTERN.test(verifier))
              return oauthErrorResult(fail('invalid_request', 'code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~.'), requestId);
            result = await tokens.exchangeCode({ client, code, redirectUri, codeVerifier: verifier, resource, requestId });
          } else {
            const refreshToken = params.get('refresh_token');
            if (!refreshToken) return oauthErrorResult(fail('invalid_request', 'refresh_token is required.'), requestId);
            result = await tokens.refresh({ client, refreshToken, resource, scope: params.get('scope'), requestId });
          }
          return isFailure(result) ? oauthErrorResult(result, requestId) : json(result);
        },
      },
      {
        method: 'POST',
        path: '/oauth/revoke',
        summary: 'Token revocation (RFC 7009): always 200 with an empty body.',
        ...OAUTH_ROUTE,
        body: ANY_BODY,
        handler: async ({ ctx, requestId }) => {
          const done: RouteResult = { status: 200, headers: { ...CORS_HEADERS, ...NO_STORE }, body: '' };
          const params = formParams(ctx);
          if ('problem' in params) return done;
          const token = params.get('token');
          if (!token) return done;
          const client = await clients.resolve(params.get('client_id'));
          if (isFailure(client) || clients.authenticate(client, params.get('client_secret'))) return done;
          await tokens.revoke({ client, token, requestId });
          return done;
        },
      },
    ];
    return routes;
  },
);

import type Router from '@koa/router';
import type { Context } from 'koa';
import { coreErrors } from '../errors/core-errors.js';
import { enforceAccess } from './access-guards.js';
import { attachAnswerReplay, sendRecordedAnswer } from './answer-replay.js';
import type { AuthContext, AuthenticationRequest, Authenticator } from './authenticator.js';
import type { RouteDefinition } from './route.js';
import { validateInput } from './validate.js';

const WRITE_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const ANONYMOUS: AuthContext = { method: 'api_key', credentialId: '', actor: 'anonymous' };

/**
 * Mounts route definitions on a router: authenticate (when `auth` is not `none`), enforce access,
 * validate params, query and body, run the handler, write its result.
 */
export function mountRoutes(router: Router, routes: readonly RouteDefinition[], authenticators: ReadonlyMap<string, Authenticator>): void {
  for (const route of routes) {
    const authenticator = route.auth === 'none' ? undefined : authenticators.get(route.auth);
    if (route.auth !== 'none' && !authenticator) {
      throw new Error(`route ${route.method} ${route.path} needs authenticator "${route.auth}", which no enabled plugin provides`);
    }
    const request: AuthenticationRequest = {
      repeat: WRITE_METHODS.has(route.method) ? (route.idempotent === true ? 'record' : 'claim') : route.repeatAnswersFirst === true ? 'claim' : 'none',
    };
    const handle = async (ctx: Context) => {
      const auth = authenticator ? await authenticator.authenticate(ctx, request) : ANONYMOUS;
      if (auth.replay?.earlier) {
        sendRecordedAnswer(ctx, auth.replay.earlier);
        return;
      }
      if (auth.replay) attachAnswerReplay(ctx, auth.replay);
      ctx.state['auth'] = auth;
      const rawParams = (ctx as unknown as { params: Record<string, string> }).params ?? {};
      if (authenticator) await enforceAccess(route.access, auth, rawParams, authenticator);
      const params = route.params ? validateInput<unknown>(route.params, rawParams, 'params', true) : rawParams;
      const query = route.query ? validateInput<unknown>(route.query, { ...ctx.query }, 'query', true) : {};
      if (!route.body && ctx.request.rawBody.length > 0 && ctx.request.body !== undefined && ctx.method !== 'GET') {
        const body = ctx.request.body;
        const empty = typeof body === 'object' && body !== null && Object.keys(body).length === 0;
        if (!empty) throw coreErrors.validation_error({ message: 'This endpoint takes no request body.', details: { field: 'body' } });
      }
      const body = route.body ? validateInput<unknown>(route.body, ctx.request.body ?? {}, 'body', false) : undefined;
      const result = await route.handler({
        ctx,
        params: params as never,
        query: query as never,
        body: body as never,
        auth,
        requestId: String(ctx.state['requestId'] ?? ''),
      });
      for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
      ctx.status = result.status ?? 200;
      if (result.body !== undefined) ctx.body = result.body;
    };
    router.register(route.path, [route.method], handle, { name: `${route.method} ${route.path}` });
  }
}

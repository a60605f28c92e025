import type { Middleware } from 'koa';
import { newId } from '../ids.js';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a sane incoming `X-Request-Id` or makes a ULID; echoes it on the response. */
export function requestIdMiddleware(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const id = ACCEPTABLE.test(incoming) ? incoming : newId();
    ctx.state['requestId'] = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}

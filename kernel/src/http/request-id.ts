import type { Middleware } from 'koa';
import { ulid } from 'ulid';

const ACCEPTABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Takes a sane incoming `X-Request-Id` or makes a ULID; echoes it on the response. */
export function requestIdMiddleware(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const id = ACCEPTABLE.test(incoming) ? incoming : ulid();
    ctx.state['requestId'] = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}

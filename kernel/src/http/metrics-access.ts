import type { Context } from 'koa';
import { sameSecret } from '../crypto/form-token.js';
import { classifyAddress } from '../net/blocked-address.js';

/**
 * Who may read `/metrics` (issue 26 finding 5): with `http.metricsToken` set, a request carrying
 * `Authorization: Bearer <token>`; without it, only a connection from loopback that no proxy
 * forwarded (no `X-Forwarded-For`, `X-Real-IP` or `Forwarded` header), judged by the socket's peer
 * address, never by a header: a Prometheus on the same host scrapes it, the internet does not.
 */
export function mayReadMetrics(ctx: Context, token: string | undefined): boolean {
  if (token !== undefined) {
    const presented = /^Bearer ([^\s]+)$/i.exec(ctx.get('authorization'))?.[1] ?? '';
    return sameSecret(presented, token);
  }
  if (ctx.get('x-forwarded-for') || ctx.get('x-real-ip') || ctx.get('forwarded')) return false;
  const peer = ctx.req.socket.remoteAddress;
  return peer !== undefined && classifyAddress(peer) === 'loopback';
}

import type { Context } from 'koa';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * Whether the dashboard's cookie gets `Secure`: always, except when the browser talks to a
 * loopback address (`pnpm start` on the operator's own machine, over plain http).
 */
export function secureCookie(ctx: Context): boolean {
  return ctx.protocol === 'https' || !LOOPBACK.has(ctx.hostname.toLowerCase());
}

/**
 * Whether a POST may come from this site: `Sec-Fetch-Site` is not `cross-site`/`same-site`, and an
 * `Origin` header, when the browser sends one, is this request's own origin or the origin of the
 * configured public base URL (`http.baseUrl`: behind a TLS proxy without `http.trustProxy` the
 * request itself looks like plain http). A browser sends `Origin` with every form POST; tools
 * without it still need the session's CSRF token.
 */
export function sameOrigin(ctx: Context, baseUrl?: string): boolean {
  const fetchSite = ctx.get('Sec-Fetch-Site');
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return false;
  const origin = ctx.get('Origin');
  if (!origin) return true;
  return origin === `${ctx.protocol}://${ctx.host}` || (baseUrl !== undefined && origin === new URL(baseUrl).origin);
}

/**
 * The CSP `form-action` source that lets a form post to `url`: its origin, or its scheme alone for
 * an IPv6 literal host (CSP has no host form for it). Only an absolute `http(s)` URL is accepted
 * (its serialised origin then holds no separator of the policy); anything else is a programming
 * error of the page.
 */
export function formActionSource(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new Error(`formAction: ${parsed.protocol} URLs are not form targets of a dashboard page`);
  return parsed.hostname.startsWith('[') ? parsed.protocol : parsed.origin;
}

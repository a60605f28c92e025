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
 * The CSP `form-action` source that lets a form post to `url`: exactly its origin. Only an
 * absolute `http(s)` URL whose host CSP can name is accepted (its serialised origin then holds no
 * separator of the policy); anything else is a programming error of the page, which refuses such a
 * target before it renders a form for it. CSP's host-source grammar has no IPv6 literal, and
 * naming the scheme alone would let the page's forms post to any site: an IPv6-literal host is
 * refused, not widened. (The OAuth plugin's pages keep their own rule: RFC 8252 native apps
 * register `http://[::1]` and private-use-scheme redirects, which only a scheme source reaches.)
 */
export function formActionSource(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new Error(`formAction: ${parsed.protocol} URLs are not form targets of a dashboard page`);
  if (parsed.hostname.startsWith('[')) throw new Error(`formAction: ${parsed.host} is an IPv6 literal, which a CSP source cannot name`);
  return parsed.origin;
}

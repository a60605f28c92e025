import { createHmac, timingSafeEqual } from 'node:crypto';

/** Seconds either side of server time that `X-Timestamp` may be (spec 5.1 and 8; not tunable). */
export const SIGNATURE_WINDOW_SECONDS = 300;

/**
 * The string a REST request signature covers (spec 5.1, the later variant):
 * `METHOD\nTARGET\nTIMESTAMP\nRAW_BODY`. RAW_BODY is '' when there is no body. TARGET is one of
 * two forms (docs/decisions.md, "Signing forms"): the URL pathname alone, as spec 5.1 words it, or
 * the pathname plus `?` and the raw query string when the URL has one (no decoding, re-encoding or
 * sorting; server side Koa's `ctx.originalUrl`), so filters of a captured read cannot be swapped.
 * The gateway accepts both unless `security.signedQuery` is `required`; the clients sign the query.
 */
export function requestSigningString(method: string, target: string, timestamp: string, rawBody: string): string {
  return `${method.toUpperCase()}\n${target}\n${timestamp}\n${rawBody}`;
}

/** The request target a client signs for `url`: pathname and, when present, `?` and the query. */
export function requestTarget(url: URL): string {
  return `${url.pathname}${url.search}`;
}

/** How the gateway treats the query string in signatures (`security.signedQuery`). */
export type SignedQueryPolicy = 'optional' | 'required';

/**
 * The targets a received request's signature may cover, given the target as received
 * (`ctx.originalUrl`): the full target, and under `optional` also the pathname alone when there
 * is a query.
 */
export function acceptedSigningTargets(received: string, policy: SignedQueryPolicy): string[] {
  const at = received.indexOf('?');
  if (at < 0) return [received];
  // An empty query (`/x?`) filters nothing; URL APIs drop it, so a client signs `/x` for it.
  if (policy === 'required' && at < received.length - 1) return [received];
  return [received, received.slice(0, at)];
}

/** Lowercase hex HMAC-SHA256 of `payload` under `secret`. */
export function hmacHex(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload, 'utf8').digest('hex');
}

/** Signs a request the way a partner does; used by the CLI examples, tests and benchmarks. */
export function signRequest(input: { secret: string; method: string; target: string; timestamp: number | string; rawBody?: string }): string {
  return hmacHex(input.secret, requestSigningString(input.method, input.target, String(input.timestamp), input.rawBody ?? ''));
}

/**
 * Constant-time comparison of a presented hex signature against the expected one for each
 * candidate signing string (the accepted target forms) and secret (several during a rotation overlap). Every candidate is compared, so timing does
 * not reveal which one matched.
 */
export function signatureMatchesAny(presented: string, signingString: string | readonly string[], secrets: readonly string[]): boolean {
  if (!/^[0-9a-f]{64}$/.test(presented)) return false;
  const given = Buffer.from(presented, 'hex');
  let matched = false;
  for (const candidate of typeof signingString === 'string' ? [signingString] : signingString) {
    for (const secret of secrets) {
      const expected = Buffer.from(hmacHex(secret, candidate), 'hex');
      if (timingSafeEqual(given, expected)) matched = true;
    }
  }
  return matched;
}

/** Parses `X-Timestamp`: decimal Unix seconds, no sign, no fraction. Undefined when malformed. */
export function parseTimestamp(header: string): number | undefined {
  if (!/^\d{1,12}$/.test(header)) return undefined;
  return Number(header);
}

/** Whether `timestamp` is within the window around `nowSeconds`. */
export function timestampInWindow(timestamp: number, nowSeconds: number): boolean {
  return Math.abs(nowSeconds - timestamp) <= SIGNATURE_WINDOW_SECONDS;
}

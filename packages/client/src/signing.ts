/**
 * REST request signing (spec 5.1): `X-Signature` is the lowercase hex HMAC-SHA256, keyed with the
 * project's API secret, of `METHOD\nTARGET\nTIMESTAMP\nRAW_BODY`.
 */
import { hmacSha256Hex } from './web-crypto.js';

/**
 * The request target a signature covers (docs/decisions.md, "The signed target includes the query
 * string"): the URL's pathname exactly as sent, plus `?` and the raw query string when it has one.
 */
export function signingTarget(url: URL): string {
  return url.search.length > 1 ? `${url.pathname}${url.search}` : url.pathname;
}

/** The string a signature covers. */
export function signingString(method: string, target: string, timestamp: string, rawBody: string): string {
  return `${method.toUpperCase()}\n${target}\n${timestamp}\n${rawBody}`;
}

/** The three authentication headers of a request. */
export interface SignedHeaders {
  readonly 'X-Project-Id': string;
  readonly 'X-Timestamp': string;
  readonly 'X-Signature': string;
}

export interface SignRequestInput {
  readonly projectId: string;
  readonly secret: string;
  readonly method: string;
  readonly url: URL;
  /** The exact body sent; '' for none. */
  readonly rawBody: string;
  /** Unix seconds; default now. */
  readonly timestamp?: number;
}

/** The headers that authenticate one request. */
export async function signRequest(input: SignRequestInput): Promise<SignedHeaders> {
  const timestamp = String(input.timestamp ?? Math.floor(Date.now() / 1000));
  const target = signingTarget(input.url);
  const signature = await hmacSha256Hex(input.secret, signingString(input.method, target, timestamp, input.rawBody));
  return { 'X-Project-Id': input.projectId, 'X-Timestamp': timestamp, 'X-Signature': signature };
}

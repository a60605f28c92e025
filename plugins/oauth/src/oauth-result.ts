import { underPathPrefix, withRetryAfter, type ErrorFormat, type RouteResult } from '@gw/kernel';
import { errorPage } from './pages.js';
import { oauthErrors } from './errors.js';

/** An OAuth protocol error: an RFC 6749 `error` code (catalogued in errors.ts) and a description. */
export type OAuthErrorCode = (keyof typeof oauthErrors & string) | 'rate_limit_exceeded';

export interface OAuthFailure {
  readonly error: OAuthErrorCode;
  readonly description: string;
  /** Overrides the catalogued status (e.g. 429 for the registration limit). */
  readonly status?: number;
  readonly retryAfter?: number;
}

export const fail = (error: OAuthFailure['error'], description: string): OAuthFailure => ({ error, description });

export function isFailure(value: unknown): value is OAuthFailure {
  return typeof value === 'object' && value !== null && 'error' in value && 'description' in value;
}

/** Headers of every response of the token, registration, revocation and metadata endpoints. */
export const CORS_HEADERS = { 'Access-Control-Allow-Origin': '*' } as const;
export const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' } as const;

/**
 * The JSON error body of RFC 6749 section 5.2 / RFC 7591 section 3.2.2. `error_code` and
 * `request_id` repeat the code and id in the gateway's own envelope names.
 */
export function oauthErrorResult(failure: OAuthFailure, requestId: string): RouteResult {
  const status = failure.status ?? (oauthErrors as unknown as Record<string, { spec: { status: number } }>)[failure.error]?.spec.status ?? 400;
  const headers: Record<string, string> = { ...CORS_HEADERS, ...NO_STORE };
  if (failure.retryAfter !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(failure.retryAfter)));
  return {
    status,
    headers,
    body: { error: failure.error, error_description: failure.description, error_code: failure.error, request_id: requestId },
  };
}

/** Endpoints whose errors use the status codes of RFC 6749 section 5.2 / RFC 7591 section 3.2.2 (400 unless stated). */
const BODY_ENDPOINTS = ['/oauth/token', '/oauth/revoke', '/oauth/register'];

/**
 * Every error under `/oauth` that no handler answered itself (the kernel's 404, 405, 413, 415,
 * body validation such as NUL characters, 503, 500) in the OAuth shapes (issue 24 item 4): the
 * authorization pages get the HTML error page (nothing is redirected: the redirect URI was not
 * validated), every other endpoint RFC 6749's JSON error. Token, revocation and registration use
 * RFC 6749 section 5.2's status codes: every client error is 400.
 */
export const oauthErrorFormat: ErrorFormat = {
  pathPrefix: '/oauth',
  render: ({ error, path, requestId }) => {
    const register = underPathPrefix(path, '/oauth/register');
    let code: OAuthErrorCode;
    let description = error.message;
    if (error.code in oauthErrors || error.code === 'rate_limit_exceeded') code = error.code as OAuthErrorCode;
    else if (error.status === 503) code = 'temporarily_unavailable';
    else if (error.status >= 500) code = 'server_error';
    else code = register && [400, 413, 415].includes(error.status) ? 'invalid_client_metadata' : 'invalid_request';
    if (error.status === 415) description = register ? 'The body must be application/json.' : 'The body must be application/x-www-form-urlencoded.';
    if (error.status === 404) description = 'There is no OAuth endpoint at this path.';
    if (underPathPrefix(path, '/oauth/authorize')) {
      const title = error.status === 404 ? 'Not found' : error.status === 429 ? 'Too many requests' : error.status >= 500 ? 'Unavailable' : 'Invalid request';
      const page = errorPage(title, `${code}: ${description}`, error.status);
      return error.retryAfter === undefined ? page : withRetryAfter(page, Math.max(1, Math.ceil(error.retryAfter)));
    }
    const fivexx = error.status >= 500 || error.status === 429;
    const status = BODY_ENDPOINTS.some((p) => underPathPrefix(path, p)) && !fivexx && code !== 'invalid_client' ? 400 : error.status;
    return oauthErrorResult({ error: code, description, status, ...(error.retryAfter !== undefined ? { retryAfter: error.retryAfter } : {}) }, requestId);
  },
};

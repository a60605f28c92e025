import type { RouteResult } from '@gw/kernel';
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

import type { Context } from 'koa';
import type { TSchema, Static } from 'typebox';
import type { AppError } from '@gw/chain-api';
import type { AuthContext } from './authenticator.js';

/** `OPTIONS` serves CORS preflights (hidden routes; the router answers other OPTIONS itself). */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * Access rules a route declares; the kernel enforces them after authentication, in this order:
 * cross-mode check (routes with `projectParam`), project-kind guard, subscription guard.
 */
export interface RouteAccess {
  /**
   * `production`: production and testnet projects only (else 403 `production_project_required`).
   * `sandbox`: sandbox projects only (else 403 `sandbox_project_required`).
   */
  readonly projectKind?: 'production' | 'sandbox';
  /** A write: blocked with 402 `subscription_expired` for non-sandbox projects of inactive operators. */
  readonly write?: boolean;
  /**
   * Name of a path parameter that names the target project explicitly. The kernel compares it
   * with the credential's project: a sandbox secret aimed at a production/testnet project is 400
   * `sandbox_key_against_production_project`, the reverse 400 `production_key_against_sandbox_project`,
   * any other project 403 `permission_denied`.
   */
  readonly projectParam?: string;
  /**
   * With `projectKind: 'sandbox'`: a production or testnet secret is refused by the cross-mode
   * check (400 `production_key_against_sandbox_project`, spec 5.1's later variant) instead of the
   * project-kind guard (403 `sandbox_project_required`). The sandbox mirror routes use it; the
   * simulation routes do not (spec 4.5: no cross-mode check fires there).
   */
  readonly crossModeByKey?: boolean;
}

/** What a handler receives: validated inputs and the caller. */
export interface RouteInput<P, Q, B> {
  readonly ctx: Context;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Present when the route has `auth`. */
  readonly auth: AuthContext;
  readonly requestId: string;
}

/** What a handler returns. */
export interface RouteResult {
  readonly status?: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One HTTP route. Schemas are TypeBox: params, query and body are validated (query and params are
 * coerced from strings first) and any failure is 400 `validation_error` naming the field. The
 * same schemas feed the OpenAPI document.
 */
export interface RouteDefinition<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema> {
  readonly method: HttpMethod;
  /** Koa-router path, e.g. `/api/v1/invoices/:id`. */
  readonly path: string;
  /**
   * OpenAPI `operationId`; default derived from method and path (`GET /api/v1/invoices/:id` →
   * `getInvoicesById`). Give one only to keep an id stable across a path change.
   */
  readonly operationId?: string;
  /** Leave the route out of the OpenAPI document (static assets of the API reference page). */
  readonly hidden?: boolean;
  readonly summary: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  /** Name of the authenticator to run, or `none` for public routes. */
  readonly auth: string;
  /**
   * A write whose repetition is harmless by design (idempotent on `external_id`): not claimed
   * before it runs, its answer recorded after, so the hot path pays one statement. A copy of its
   * signed request arriving after the first answered gets that answer without running; copies
   * running at the same moment all send the answer recorded first. Every other write (POST, PUT,
   * PATCH, DELETE) is claimed before it runs: a copy waits for the first answer and gets it without
   * running (docs/decisions.md, "Signing forms and repeated signed requests"). It also makes the
   * operation safe to retry with a new signature ({@link isRetrySafe}).
   */
  readonly idempotent?: boolean;
  /**
   * A read whose identical signed copy must answer as the first did rather than run anew (the
   * event stream: a captured read must not reveal events created after it). Claimed like a write:
   * a copy arriving while the first still long-polls waits for its answer.
   */
  readonly repeatAnswersFirst?: boolean;
  readonly access?: RouteAccess;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /**
   * Response schemas by status, for documentation and response tests. Bodies are JSON unless the
   * schema is a string schema with `contentMediaType` (e.g. `text/html`).
   */
  readonly responses?: Readonly<Record<number, TSchema>>;
  /** Error codes this route may return beyond the authentication errors, for documentation. */
  readonly errors?: readonly string[];
  readonly handler: (input: RouteInput<Static<P>, Static<Q>, Static<B>>) => Promise<RouteResult>;
}

/**
 * Whether a client may send the operation again, newly signed, after a lost answer, a dropped
 * connection, a 429 or a 503 without risking a second effect: every read, and the writes that are
 * idempotent by design. The OpenAPI document states it per operation as `x-retry-safe`, and the
 * SDK generators read it from there.
 */
export function isRetrySafe(route: Pick<RouteDefinition, 'method' | 'idempotent'>): boolean {
  return route.method === 'GET' || route.idempotent === true;
}

/** Declares a route with inferred handler input types. */
export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema>(route: RouteDefinition<P, Q, B>): RouteDefinition {
  return route as unknown as RouteDefinition;
}

/** What an error format receives: the error (code, status, message, retryAfter) and the request. */
export interface ErrorFormatInput {
  readonly error: AppError;
  readonly method: string;
  readonly path: string;
  readonly requestId: string;
}

/**
 * Renders every error under one path prefix (routing, body reading, validation, a handler's
 * throw) in a protocol's own shape instead of the REST envelope: RFC 6749's for `/oauth`. The
 * longest matching prefix of every enabled plugin wins; the REST envelope is the default.
 */
export interface ErrorFormat {
  /** `/oauth` matches `/oauth` and everything below `/oauth/`. */
  readonly pathPrefix: string;
  readonly render: (input: ErrorFormatInput) => RouteResult;
}

/** Whether `path` is `prefix` or below it. */
export function underPathPrefix(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`);
}

/** `result` with a `Retry-After` of `seconds` added to its headers (a 429 or 503 answer). */
export function withRetryAfter<T extends { readonly headers?: Readonly<Record<string, string>> | undefined }>(result: T, seconds: number): T {
  return { ...result, headers: { ...result.headers, 'Retry-After': String(seconds) } };
}

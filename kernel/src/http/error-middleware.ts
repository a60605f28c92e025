import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, isAppError, ProviderError } from '@gw/chain-api';
import { coreErrors } from '../errors/core-errors.js';
import { isDatabaseUnavailable } from '../db/database-unavailable.js';
import { underPathPrefix, type ErrorFormat } from './route.js';

/**
 * The one place errors become responses: `{ error_code, message, request_id, details? }` with the
 * catalogued status and `Retry-After` when the error carries one, or, under the path prefix of an
 * `ErrorFormat` (plugins declare them), that format's response. A database that cannot be reached
 * (down, restarting, out of connections) is 503 `service_unavailable` with `Retry-After`: the
 * request's transaction never committed, so the partner sends the same request again. Anything
 * else that is not an AppError is a bug: logged with its cause and rendered as 500 `internal_error`
 * without internals.
 */
export function errorMiddleware(logger: Logger, formats: readonly ErrorFormat[] = []): Middleware {
  // Longest prefix first, so a format for `/oauth/x` beats one for `/oauth`.
  const ordered = [...formats].sort((a, b) => b.pathPrefix.length - a.pathPrefix.length);
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw coreErrors.not_found();
    } catch (thrown) {
      const error = toAppError(thrown);
      const requestId = String(ctx.state['requestId'] ?? '');
      if (error.code === 'service_unavailable' && error.cause !== undefined) {
        logger.warn({ err: error.cause, requestId, path: loggedPath(ctx), method: ctx.method }, 'database unavailable; answered 503');
      } else if (error.status >= 500) {
        logger.error({ err: thrown, requestId, path: loggedPath(ctx), method: ctx.method }, 'request failed');
      }
      if (error.retryAfter !== undefined) ctx.set('Retry-After', String(Math.max(0, Math.ceil(error.retryAfter))));
      const format = ordered.find((f) => underPathPrefix(ctx.path, f.pathPrefix));
      if (format) {
        const rendered = format.render({ error, method: ctx.method, path: ctx.path, requestId });
        for (const [name, value] of Object.entries(rendered.headers ?? {})) ctx.set(name, value);
        ctx.status = rendered.status ?? error.status;
        ctx.body = rendered.body ?? '';
        return;
      }
      ctx.status = error.status;
      ctx.body = {
        error_code: error.code,
        message: error.message,
        request_id: requestId,
        ...(error.details ? { details: error.details } : {}),
      };
    }
  };
}

/** Path segments after which a URL carries a bearer token (the payer's claim link, the checkout link). */
const TOKEN_PREFIXES: readonly (readonly string[])[] = [['refunds', 'claim'], ['checkout']];

/**
 * What a log line names of the request: the matched route's pattern (`/refunds/claim/:token`), else
 * the path with the segment after `/refunds/claim/` or `/checkout/` replaced by `:token`. Claim and
 * checkout links are bearer capabilities (the claim link moves the payer's money); logs never hold them.
 */
export function loggedPath(ctx: { readonly path: string; readonly [key: string]: unknown }): string {
  const matched = ctx['_matchedRoute'];
  if (typeof matched === 'string') return matched;
  const segments = ctx.path.split('/');
  for (let i = 0; i < segments.length; i++) {
    for (const prefix of TOKEN_PREFIXES) {
      const end = i + prefix.length;
      if (end < segments.length && prefix.every((word, k) => segments[i + k] === word)) segments[end] = ':token';
    }
  }
  return segments.join('/');
}

export function toAppError(thrown: unknown): AppError {
  if (isAppError(thrown)) return thrown;
  if (isDatabaseUnavailable(thrown))
    return coreErrors.service_unavailable({ message: 'The database cannot be reached right now; retry after the delay in Retry-After.', cause: thrown });
  // Every configured provider of a chain failed (down, timing out, answering garbage): the request
  // may succeed later, and the answer names no provider (their URLs can carry credentials).
  if (thrown instanceof ProviderError) {
    const seconds = thrown.retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(thrown.retryAfterMs / 1000));
    return coreErrors.chain_provider_unavailable({ cause: thrown, ...(seconds ? { retryAfter: seconds } : {}) });
  }
  const status = (thrown as { status?: number; expose?: boolean }).status;
  // Koa/http-errors raised by framework code (e.g. body parsing) carry a status of their own.
  if (status === 413) return coreErrors.payload_too_large();
  if (status === 415) return coreErrors.unsupported_media_type();
  if (status === 400) return coreErrors.validation_error({ message: (thrown as Error).message });
  return coreErrors.internal_error({ cause: thrown });
}

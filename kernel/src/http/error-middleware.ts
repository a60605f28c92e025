import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors/app-error.js';
import { coreErrors } from '../errors/core-errors.js';
import { isDatabaseUnavailable } from '../db/database-unavailable.js';

/**
 * The one place errors become responses: `{ error_code, message, request_id, details? }` with the
 * catalogued status and `Retry-After` when the error carries one. A database that cannot be reached
 * (down, restarting, out of connections) is 503 `service_unavailable` with `Retry-After`: the
 * request's transaction never committed, so the partner sends the same request again. Anything
 * else that is not an AppError is a bug: logged with its cause and rendered as 500 `internal_error`
 * without internals.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw coreErrors.not_found();
    } catch (thrown) {
      const error = toAppError(thrown);
      const requestId = String(ctx.state['requestId'] ?? '');
      if (error.code === 'service_unavailable' && error.cause !== undefined) {
        logger.warn({ err: error.cause, requestId, path: ctx.path, method: ctx.method }, 'database unavailable; answered 503');
      } else if (error.status >= 500) {
        logger.error({ err: thrown, requestId, path: ctx.path, method: ctx.method }, 'request failed');
      }
      ctx.status = error.status;
      if (error.retryAfter !== undefined) ctx.set('Retry-After', String(Math.max(0, Math.ceil(error.retryAfter))));
      ctx.body = {
        error_code: error.code,
        message: error.message,
        request_id: requestId,
        ...(error.details ? { details: error.details } : {}),
      };
    }
  };
}

export function toAppError(thrown: unknown): AppError {
  if (isAppError(thrown)) return thrown;
  if (isDatabaseUnavailable(thrown)) return coreErrors.service_unavailable({ message: 'The database cannot be reached right now; retry after the delay in Retry-After.', cause: thrown });
  const status = (thrown as { status?: number; expose?: boolean }).status;
  // Koa/http-errors raised by framework code (e.g. body parsing) carry a status of their own.
  if (status === 413) return coreErrors.payload_too_large();
  if (status === 415) return coreErrors.unsupported_media_type();
  if (status === 400) return coreErrors.validation_error({ message: (thrown as Error).message });
  return coreErrors.internal_error({ cause: thrown });
}

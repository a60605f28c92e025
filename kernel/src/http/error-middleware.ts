import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors/app-error.js';
import { coreErrors } from '../errors/core-errors.js';

/**
 * The one place errors become responses: `{ error_code, message, request_id, details? }` with the
 * catalogued status and `Retry-After` when the error carries one. Anything that is not an AppError
 * is a bug: logged with its cause and rendered as 500 `internal_error` without internals.
 */
export function errorMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw coreErrors.not_found();
    } catch (thrown) {
      const error = toAppError(thrown);
      const requestId = String(ctx.state['requestId'] ?? '');
      if (error.status >= 500) {
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

function toAppError(thrown: unknown): AppError {
  if (isAppError(thrown)) return thrown;
  const status = (thrown as { status?: number; expose?: boolean }).status;
  // Koa/http-errors raised by framework code (e.g. body parsing) carry a status of their own.
  if (status === 413) return coreErrors.payload_too_large();
  if (status === 415) return coreErrors.unsupported_media_type();
  if (status === 400) return coreErrors.validation_error({ message: (thrown as Error).message });
  return coreErrors.internal_error({ cause: thrown });
}

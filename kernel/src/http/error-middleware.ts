import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { AppError, isAppError } from '../errors/app-error.js';
import { coreErrors } from '../errors/core-errors.js';
import { underPathPrefix, type ErrorFormat } from './route.js';

/**
 * The one place errors become responses: `{ error_code, message, request_id, details? }` with the
 * catalogued status and `Retry-After` when the error carries one, or, under the path prefix of an
 * `ErrorFormat` (plugins declare them), that format's response. Anything that is not an AppError
 * is a bug: logged with its cause and rendered as 500 `internal_error` without internals.
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
      if (error.status >= 500) {
        logger.error({ err: thrown, requestId, path: ctx.path, method: ctx.method }, 'request failed');
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

function toAppError(thrown: unknown): AppError {
  if (isAppError(thrown)) return thrown;
  const status = (thrown as { status?: number; expose?: boolean }).status;
  // Koa/http-errors raised by framework code (e.g. body parsing) carry a status of their own.
  if (status === 413) return coreErrors.payload_too_large();
  if (status === 415) return coreErrors.unsupported_media_type();
  if (status === 400) return coreErrors.validation_error({ message: (thrown as Error).message });
  return coreErrors.internal_error({ cause: thrown });
}

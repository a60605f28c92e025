/**
 * The one error type every layer throws for an expected failure.
 *
 * `code` is a spec section 7 name (or a plugin's own catalogued code), `status` the HTTP status the
 * error middleware renders, `retryAfter` (seconds) becomes the `Retry-After` header. Anything thrown
 * that is not an AppError is rendered as 500 `internal_error` and logged with its cause.
 */
export class AppError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly retryAfter: number | undefined;

  constructor(init: {
    code: string;
    status: number;
    message: string;
    details?: Record<string, unknown> | undefined;
    retryAfter?: number | undefined;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'AppError';
    this.code = init.code;
    this.status = init.status;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** The errors the client throws. */

/** The JSON body of every error answer (docs/errors.md). */
export interface ErrorBody {
  readonly error_code: string;
  readonly message: string;
  readonly request_id: string;
  readonly details?: Readonly<Record<string, unknown>>;
}

/**
 * The gateway answered with an error status. Branch on `errorCode` (docs/errors.md lists them
 * all), never on `message`. Quote `requestId` when asking for support.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  /** The spec's error code, e.g. `invoice_not_found`; `http_<status>` when the body was not the error envelope. */
  readonly errorCode: string;
  /** The HTTP status. */
  readonly status: number;
  /** The request's id (`X-Request-Id`), also in the gateway's logs. */
  readonly requestId: string | undefined;
  /** Seconds the gateway asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter: number | undefined;
  /** Structured details of some errors (e.g. `field` and `issues` of `validation_error`). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** The method and path of the failed request. */
  readonly request: { readonly method: string; readonly path: string };

  constructor(init: { status: number; body: unknown; requestId: string | undefined; retryAfter: number | undefined; method: string; path: string }) {
    const body = isErrorBody(init.body) ? init.body : undefined;
    super(body ? `${body.error_code}: ${body.message}` : `HTTP ${init.status} from ${init.method} ${init.path}`);
    this.status = init.status;
    this.errorCode = body?.error_code ?? `http_${init.status}`;
    this.requestId = body?.request_id ?? init.requestId;
    this.retryAfter = init.retryAfter;
    this.details = body?.details;
    this.request = { method: init.method, path: init.path };
  }
}

/** The request did not get an HTTP answer (connection refused or reset, DNS, timeout) after every allowed attempt. */
export class GatewayConnectionError extends Error {
  override readonly name = 'GatewayConnectionError';
  readonly request: { readonly method: string; readonly path: string };
  /** How many attempts were made. */
  readonly attempts: number;

  constructor(method: string, path: string, attempts: number, cause: unknown) {
    super(`${method} ${path} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.request = { method, path };
    this.attempts = attempts;
  }
}

/** A webhook delivery failed verification; `reason` says why (each maps to a distinct 401 answer). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(readonly reason: 'malformed_header' | 'signature_mismatch' | 'timestamp_out_of_window' | 'invalid_json') {
    super(`webhook verification failed: ${reason}`);
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  return typeof body === 'object' && body !== null && typeof (body as ErrorBody).error_code === 'string' && typeof (body as ErrorBody).message === 'string';
}

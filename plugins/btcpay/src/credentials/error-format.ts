import type { AppError, ErrorFormat, RouteResult } from '@gw/kernel';

/**
 * BTCPay's own code for each error of this gateway that has one (BTCPay's `GreenfieldAPIError`
 * codes); any other error's code is its gateway code in BTCPay's kebab case (`coin_not_allowed` →
 * `coin-not-allowed`). docs/btcpay-compatibility.md lists them.
 */
export const GREENFIELD_CODES: Readonly<Record<string, string>> = {
  btcpay_unauthenticated: 'unauthenticated',
  btcpay_missing_permission: 'missing-permission',
  btcpay_store_not_found: 'store-not-found',
  btcpay_invoice_not_found: 'invoice-not-found',
  btcpay_webhook_not_found: 'webhook-not-found',
  btcpay_pull_payment_not_found: 'pullpayment-not-found',
  btcpay_payment_method_not_found: 'paymentmethod-not-found',
  btcpay_api_key_not_found: 'api-key-not-found',
  btcpay_invalid_state: 'invalid-state',
  btcpay_not_supported: 'not-supported',
  auth_invalid: 'unauthenticated',
  permission_denied: 'missing-permission',
  rate_limit_exceeded: 'rate-limited',
  service_unavailable: 'service-unavailable',
  internal_error: 'generic-error',
};

/** The gateway's validation errors, answered as BTCPay answers an invalid request: 422 and a list. */
const VALIDATION_CODES: ReadonlySet<string> = new Set(['validation_error', 'btcpay_validation_failed']);

/** A `details.greenfieldCode` an area gives an error to answer with another of BTCPay's codes (`non-refundable`). */
const KEBAB_CODE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** One entry of BTCPay's 422 answer (`GreenfieldValidationError`). */
export interface GreenfieldValidationIssue {
  /** The JSON path of the property (`amount`, `checkout.expirationMinutes`); empty for the whole body. */
  readonly path: string;
  readonly message: string;
}

/**
 * Renders every error under the plugin's path prefix in BTCPay's Greenfield shapes, the kernel's
 * own (404, 405, 413, 415, a body that is not JSON, 429, 503) included, so a shop plugin never
 * sees this gateway's REST envelope:
 * - 422 `[{ "path", "message" }]` for invalid input (`details.issues` or `details.errors` list the
 *   fields; else `details.field` names the one);
 * - 403 `{ "code": "missing-permission", "message", "missingPermission" }` naming the permission;
 * - `{ "code", "message" }` for the rest, with the error's status. A 5xx never carries internals;
 *   the kernel adds `Retry-After` to a 429 or 503 itself.
 */
export function greenfieldErrorFormat(pathPrefix: string): ErrorFormat {
  return {
    pathPrefix,
    render: ({ error }) => renderGreenfieldError(error),
  };
}

/** The answer of one error in BTCPay's shape (see {@link greenfieldErrorFormat}). */
export function renderGreenfieldError(error: AppError): RouteResult {
  if (VALIDATION_CODES.has(error.code)) return { status: 422, body: validationIssues(error) };
  const details = error.details ?? {};
  const given = details['greenfieldCode'];
  const code = typeof given === 'string' && KEBAB_CODE.test(given) ? given : (GREENFIELD_CODES[error.code] ?? error.code.replaceAll('_', '-'));
  const body: Record<string, unknown> = { code, message: error.message };
  if (code === 'missing-permission' && typeof details['missingPermission'] === 'string') body['missingPermission'] = details['missingPermission'];
  return { status: error.status, body };
}

/** The fields an invalid-input error names, as BTCPay's list. */
export function validationIssues(error: AppError): GreenfieldValidationIssue[] {
  const details = error.details ?? {};
  const listed = Array.isArray(details['errors']) ? details['errors'] : Array.isArray(details['issues']) ? details['issues'] : undefined;
  if (listed) {
    const issues = listed.flatMap((entry: unknown) => {
      if (typeof entry !== 'object' || entry === null) return [];
      const item = entry as Record<string, unknown>;
      const path = typeof item['path'] === 'string' ? item['path'] : typeof item['field'] === 'string' ? greenfieldField(item['field']) : '';
      const message = typeof item['message'] === 'string' ? item['message'] : error.message;
      // The kernel's issues say what is wrong of the field they name ("is required").
      return [{ path, message: typeof item['field'] === 'string' && item['path'] === undefined ? `${path || 'The body'} ${message}` : message }];
    });
    if (issues.length > 0) return issues;
  }
  const field = typeof details['field'] === 'string' ? greenfieldField(details['field']) : '';
  return [{ path: field, message: error.message }];
}

/** A field as the kernel names it (`body`, `query.includeConfig`, `amount`) as a Greenfield path. */
function greenfieldField(field: string): string {
  if (field === 'body' || field === 'query' || field === 'params') return '';
  for (const where of ['query.', 'params.']) if (field.startsWith(where)) return field.slice(where.length);
  return field;
}

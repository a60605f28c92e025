/**
 * What the validating proxy checks of each answer, on top of BTCPay's published Greenfield document
 * as the btcpay plugin's tests read it (`GreenfieldDocument` of `@gw/plugin-btcpay/testing`: the
 * templates merged as BTCPay merges them, each body validated against its operation's schema).
 * A client sees more than a body, so the proxy also holds the gateway to what BTCPay's server does
 * beyond what its document writes down:
 * - the store-scoped paths BTCPay answers beside the store-less ones the document lists are the same
 *   operation (`/api/v1/stores/{storeId}/invoices/{invoiceId}` is `/api/v1/invoices/{invoiceId}`,
 *   and so on for webhooks, pull payments and payouts: one controller action with both routes);
 *   BTCPay's PHP client calls the store-scoped ones;
 * - no 5xx, whatever schema the document gives `default`: a 500 is a bug;
 * - errors are BTCPay's error classes (`GreenfieldAPIError` `{ code, message }`, with
 *   `missingPermission` on a 403 `missing-permission`; `GreenfieldValidationError` lists
 *   `[{ path, message }]` on a 422), whose fields the document's `ProblemDetails` and
 *   `ValidationProblemDetails` leave optional, so any object would pass them;
 * - errors are JSON (`application/json`), and a status is one the operation answers, or one of the
 *   error statuses BTCPay's framework answers on any operation (400, 401, 403, 404, 422);
 * - a page the document gives as HTML (`/api-keys/authorize`) may redirect a signed-out browser to
 *   sign in (302 or 303): BTCPay's cookie authentication answers 302 to its login page there,
 *   where its document lists a 401;
 * - a webhook event is the schema the document's `x-webhooks` gives its `type`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { btcpayPeersDir, GreenfieldDocument } from '@gw/plugin-btcpay/testing';

/**
 * Error statuses BTCPay's framework answers on any operation whether or not the document lists
 * them: 401 from its authentication, 403 from its permission policies, 400 and 422 from its model
 * validation, 404 for an unknown resource. Each must still be BTCPay's error shape.
 */
const FRAMEWORK_ERROR_STATUSES = new Set([400, 401, 403, 404, 422]);

/** The redirects a browser page may answer a signed-out visitor with, to sign in. */
const SIGN_IN_REDIRECTS = new Set([302, 303]);

/** A request resolved to the document's operation. */
export interface ResolvedOperation {
  /** Uppercase method. */
  readonly method: string;
  /** The document's path template, e.g. `/api/v1/invoices/{invoiceId}`. */
  readonly template: string;
  /** The path the document knows the request by (the store-less form of a store-scoped path). */
  readonly documentedPath: string;
  readonly responses: Record<string, any>;
}

/** The checks of the proxy; `document` compiles each schema once. */
export class GreenfieldValidator {
  /** Event type (`InvoiceSettled`) → the component schema the document's `x-webhooks` gives its body. */
  private readonly eventSchemas: Record<string, string>;

  constructor(private readonly document: GreenfieldDocument = new GreenfieldDocument()) {
    const webhooks = JSON.parse(readFileSync(join(btcpayPeersDir(), 'swagger', 'swagger.template.webhooks.json'), 'utf8'));
    this.eventSchemas = {};
    for (const [type, hook] of Object.entries<any>(webhooks['x-webhooks'] ?? {})) {
      const ref = hook?.post?.requestBody?.content?.['application/json']?.schema?.['$ref'];
      if (typeof ref === 'string') this.eventSchemas[type] = ref.slice(ref.lastIndexOf('/') + 1);
    }
  }

  /**
   * The operation `method pathname` is (`pathname` below the Greenfield prefix, without query): the
   * document's own, else the store-less operation of a store-scoped path; undefined when neither.
   */
  operation(method: string, pathname: string): ResolvedOperation | undefined {
    const direct = this.document.operation(method, pathname);
    if (direct) return { method: direct.method, template: direct.path, documentedPath: pathname, responses: direct.responses };
    // `/api/v1/stores/{storeId}/<resource>/<id>...` → `/api/v1/<resource>/<id>...` (BTCPay routes both).
    const segments = pathname.split('/');
    if (segments.length >= 7 && segments[1] === 'api' && segments[2] === 'v1' && segments[3] === 'stores') {
      const storeless = ['', 'api', 'v1', ...segments.slice(5)].join('/');
      const found = this.document.operation(method, storeless);
      if (found) return { method: found.method, template: found.path, documentedPath: storeless, responses: found.responses };
    }
    return undefined;
  }

  /** What is wrong with an answer of `operation` (empty when nothing); see the file's comment. */
  checkResponse(operation: ResolvedOperation, status: number, contentType: string | undefined, text: string): string[] {
    if (status >= 500) return [`status ${status}: BTCPay answers no 5xx to a correct client (a 500 is a bug)`];
    const declared = operation.responses[String(status)] ?? (status >= 400 ? operation.responses['default'] : undefined);
    if (!declared && SIGN_IN_REDIRECTS.has(status) && isHtmlPage(operation)) {
      return contentType?.startsWith('application/json') ? [`status ${status}: a sign-in redirect with a JSON body`] : [];
    }
    if (!declared && !(status >= 400 && FRAMEWORK_ERROR_STATUSES.has(status))) {
      return [`status ${status} is not one ${operation.method} ${operation.template} answers (${Object.keys(operation.responses).join(', ')})`];
    }
    const content = declared?.content ?? {};
    if (content['text/html'] && !content['application/json']) {
      return contentType?.startsWith('text/html') ? [] : [`status ${status}: content-type ${contentType ?? '(none)'}, the document says text/html`];
    }
    if (status < 400 && !content['application/json']) return [];
    if (!contentType?.startsWith('application/json')) return [`status ${status}: content-type ${contentType ?? '(none)'}, expected application/json`];
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return [`status ${status}: the body is not JSON: ${text.slice(0, 200)}`];
    }
    const problems = this.document.problems(operation.method, operation.documentedPath, { status, text, body });
    if (status >= 400) problems.push(...errorShapeProblems(status, body));
    return problems;
  }

  /** What is wrong with a webhook delivery's body against the document's `x-webhooks` event of its `type`. */
  checkWebhookEvent(text: string): string[] {
    let event: any;
    try {
      event = JSON.parse(text);
    } catch {
      return [`the webhook body is not JSON: ${text.slice(0, 200)}`];
    }
    const schema = this.eventSchemas[event?.type];
    if (!schema) return [`webhook type ${String(event?.type)} is not one of BTCPay's (${Object.keys(this.eventSchemas).join(', ')})`];
    return this.document.schemaProblems(schema, event);
  }
}

/** Whether the document gives the operation's 200 as an HTML page (a page a browser opens). */
function isHtmlPage(operation: ResolvedOperation): boolean {
  return operation.responses['200']?.content?.['text/html'] !== undefined;
}

/** BTCPay's error classes (see the file's comment). */
function errorShapeProblems(status: number, body: unknown): string[] {
  const isValidationList =
    Array.isArray(body) &&
    body.length > 0 &&
    body.every((e) => typeof e === 'object' && e !== null && typeof e.path === 'string' && typeof e.message === 'string');
  const error = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const isApiError = typeof error?.['code'] === 'string' && typeof error['message'] === 'string';
  if (status === 422)
    return isValidationList ? [] : [`status 422: not BTCPay's validation error list [{ path, message }]: ${JSON.stringify(body).slice(0, 300)}`];
  // A 400 is an API error, or the validation list the document gives some operations' 400.
  if (status === 400 && isValidationList) return [];
  if (!isApiError) return [`status ${status}: not BTCPay's error shape { code, message }: ${JSON.stringify(body).slice(0, 300)}`];
  if (status === 403 && error?.['code'] === 'missing-permission' && typeof error['missingPermission'] !== 'string') {
    return [`status 403 missing-permission without the missingPermission BTCPay names: ${JSON.stringify(body)}`];
  }
  return [];
}

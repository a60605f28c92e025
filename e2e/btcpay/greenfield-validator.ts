/**
 * Checks answers and webhook events against BTCPay's published Greenfield document
 * (`greenfield-document.ts`) with ajv: which operation a request is (method + path template),
 * whether the status is one the operation answers, and whether the JSON body is the schema the
 * document gives for it, or BTCPay's error shape where the document gives none.
 *
 * The document is OpenAPI 3.0 as BTCPay writes it; three readings make it a JSON Schema that
 * BTCPay's own answers pass (each documented in docs/btcpay-compatibility.md, "Every supported call"):
 * - `nullable: true` admits `null` beside whatever the schema admits (OpenAPI 3.0's meaning, also
 *   where the schema is only an `allOf` or a `$ref`, which ajv's own `nullable` refuses);
 * - `additionalProperties: false` is not enforced: BTCPay puts it in the parts of an `allOf`
 *   (`InvoiceData`, `WebhookData`, `WebhookInvoiceEvent`), where JSON Schema would reject every
 *   property of the other parts, so BTCPay's own answers would fail;
 * - a schema the published templates name but do not hold (the on-chain, Lightning and LNURL
 *   payment method configs of `GenericPaymentMethodData.config`, whose `oneOf` also admits "any other
 *   payment method data") matches nothing, so only the branches the document holds decide;
 * - the store-scoped paths BTCPay's server answers beside the store-less ones the document lists
 *   (`/api/v1/stores/{storeId}/invoices/{invoiceId}` is `/api/v1/invoices/{invoiceId}`, and so on for
 *   webhooks, pull payments and payouts: one controller action with both routes) are the same operation;
 *   BTCPay's PHP client calls the store-scoped ones.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import type { GreenfieldDocument, JsonObject } from './greenfield-document.js';

/** The id under which the document's components are registered with ajv. */
const DOCUMENT_ID = 'greenfield';

/**
 * Error statuses BTCPay's framework answers on any operation whether or not the document lists
 * them: 401 from its authentication, 403 from its permission policies, 400 and 422 from its model
 * validation, 404 for an unknown resource. Each must still be BTCPay's error shape.
 */
const FRAMEWORK_ERROR_STATUSES = new Set([400, 401, 403, 404, 422]);

/** Keys whose values are data, not schemas: copied as they are. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'x-enumNames']);

/** A request resolved to the document's operation. */
export interface GreenfieldOperation {
  /** Uppercase method. */
  readonly method: string;
  /** The document's path template, e.g. `/api/v1/invoices/{invoiceId}`. */
  readonly template: string;
  /** The path template the request used when it was the store-scoped form of `template`. */
  readonly alias?: string;
  readonly operationId: string | undefined;
  readonly responses: Record<string, JsonObject>;
}

/** The checks of one document; compiles each schema once. */
export class GreenfieldValidator {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: { template: string; segments: string[]; literals: number }[];

  constructor(private readonly document: GreenfieldDocument) {
    this.ajv = new Ajv({ strict: false, allErrors: true });
    addGreenfieldFormats(this.ajv);
    this.ajv.addSchema({ $id: DOCUMENT_ID, components: { schemas: { ...unpublished(document), ...prepare(document.components.schemas, true) } } });
    this.templates = Object.keys(document.paths).map((template) => {
      const segments = template.split('/').filter((s) => s !== '');
      return { template, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
    });
  }

  /**
   * The operation `method pathname` is (`pathname` below the Greenfield base URL, without query),
   * the most literal template first (`/api-keys/current` before `/api-keys/{apikey}`), then the
   * store-scoped alias; undefined when the document has none.
   */
  operation(method: string, pathname: string): GreenfieldOperation | undefined {
    const segments = pathname.split('/').filter((s) => s !== '');
    const direct = this.match(method, segments);
    if (direct) return direct;
    // `/api/v1/stores/{storeId}/<resource>/<id>...` → `/api/v1/<resource>/<id>...` (BTCPay routes both).
    if (segments.length >= 6 && segments[0] === 'api' && segments[1] === 'v1' && segments[2] === 'stores') {
      const storeless = this.match(method, ['api', 'v1', ...segments.slice(4)]);
      if (storeless) return { ...storeless, alias: `/api/v1/stores/{storeId}${storeless.template.slice('/api/v1'.length)}` };
    }
    return undefined;
  }

  private match(method: string, segments: string[]): GreenfieldOperation | undefined {
    const candidates = this.templates
      .filter((t) => t.segments.length === segments.length && t.segments.every((s, i) => s.startsWith('{') || s === segments[i]))
      .filter((t) => this.document.paths[t.template]?.[method.toLowerCase()] !== undefined)
      .sort((a, b) => b.literals - a.literals);
    const best = candidates[0];
    if (!best) return undefined;
    const operation = this.document.paths[best.template]![method.toLowerCase()]!;
    return { method: method.toUpperCase(), template: best.template, operationId: operation['operationId'], responses: operation['responses'] ?? {} };
  }

  /**
   * What is wrong with an answer of `operation` (empty when nothing): a status the operation does not
   * answer (or any 5xx), a body that is not the JSON of the documented schema, an error that is not
   * BTCPay's error shape (`{ code, message }`, or the `[{ path, message }]` list of a validation error).
   */
  checkResponse(operation: GreenfieldOperation, status: number, contentType: string | undefined, body: string): string[] {
    if (status >= 500) return [`status ${status}: BTCPay answers no 5xx to a correct client (a 500 is a bug)`];
    const declared = operation.responses[String(status)] ?? (status >= 400 ? operation.responses['default'] : undefined);
    if (!declared && !(status >= 400 && FRAMEWORK_ERROR_STATUSES.has(status))) {
      return [`status ${status} is not one ${operation.method} ${operation.template} answers (${Object.keys(operation.responses).join(', ')})`];
    }
    const content = (declared?.['content'] ?? {}) as Record<string, JsonObject>;
    const jsonSchema = content['application/json']?.['schema'] as JsonObject | undefined;
    if (content['text/html'] && !jsonSchema) {
      return contentType?.startsWith('text/html') ? [] : [`status ${status}: content-type ${contentType ?? '(none)'}, the document says text/html`];
    }
    if (!jsonSchema && status < 400) return [];
    if (!contentType?.startsWith('application/json')) return [`status ${status}: content-type ${contentType ?? '(none)'}, expected application/json`];
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`status ${status}: the body is not JSON: ${body.slice(0, 200)}`];
    }
    const problems = jsonSchema ? this.schemaProblems(jsonSchema, parsed, `response ${status}`) : [];
    if (status >= 400) problems.push(...errorShapeProblems(status, parsed));
    return problems;
  }

  /** What is wrong with a webhook delivery's body against the document's `x-webhooks` event of its `type`. */
  checkWebhookEvent(body: string): string[] {
    let parsed: any;
    try {
      parsed = JSON.parse(body);
    } catch {
      return [`the webhook body is not JSON: ${body.slice(0, 200)}`];
    }
    const hook = this.document['x-webhooks'][parsed?.type]?.['post'];
    const schema = hook?.['requestBody']?.['content']?.['application/json']?.['schema'] as JsonObject | undefined;
    if (!schema) return [`webhook type ${String(parsed?.type)} is not one of BTCPay's (${Object.keys(this.document['x-webhooks']).join(', ')})`];
    return this.schemaProblems(schema, parsed, `webhook ${parsed.type}`);
  }

  /** ajv's findings of `value` against a schema of the document, one line each. */
  schemaProblems(schema: JsonObject, value: unknown, where: string): string[] {
    const key = JSON.stringify(schema);
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(prepare(schema, false));
      this.compiled.set(key, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${where}: ${e.instancePath || '(body)'} ${e.message ?? 'is invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
  }
}

/**
 * BTCPay's error shapes (its `GreenfieldAPIError`, `GreenfieldPermissionAPIError` and
 * `GreenfieldValidationError` classes, which the document's `ProblemDetails` and
 * `ValidationProblemDetails` describe without marking their fields required).
 */
function errorShapeProblems(status: number, body: unknown): string[] {
  const isValidationList =
    Array.isArray(body) &&
    body.length > 0 &&
    body.every((e) => typeof e === 'object' && e !== null && typeof e.path === 'string' && typeof e.message === 'string');
  const isApiError =
    typeof body === 'object' && body !== null && !Array.isArray(body) && typeof (body as any).code === 'string' && typeof (body as any).message === 'string';
  if (status === 422)
    return isValidationList ? [] : [`status 422: not BTCPay's validation error list [{ path, message }]: ${JSON.stringify(body).slice(0, 300)}`];
  // 400 is an API error, or the validation list the document gives some operations' 400.
  if (status === 400 && isValidationList) return [];
  if (!isApiError) return [`status ${status}: not BTCPay's error shape { code, message }: ${JSON.stringify(body).slice(0, 300)}`];
  if (status === 403 && (body as any).code === 'missing-permission' && typeof (body as any).missingPermission !== 'string') {
    return [`status 403 missing-permission without the missingPermission BTCPay names: ${JSON.stringify(body)}`];
  }
  return [];
}

/** The document's formats: decimal strings and whole-second timestamps checked, the others descriptive. */
function addGreenfieldFormats(ajv: Ajv): void {
  ajv.addFormat('decimal', { type: 'string', validate: (s: string) => /^-?[0-9]+(\.[0-9]+)?$/.test(s) });
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  ajv.addFormat('unix timestamp in seconds', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('integer', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  ajv.addFormat('uri', { type: 'string', validate: (s: string) => URL.canParse(s) });
  ajv.addFormat('url', { type: 'string', validate: (s: string) => URL.canParse(s) });
  for (const descriptive of ['double', 'seconds', 'minutes', 'days', 'binary']) ajv.addFormat(descriptive, true);
}

/** The schemas the document refers to without holding them, each matching nothing (see the file's comment). */
function unpublished(document: GreenfieldDocument): Record<string, JsonObject> {
  const text = JSON.stringify(document);
  const missing: Record<string, JsonObject> = {};
  for (const match of text.matchAll(/"#\/components\/schemas\/([A-Za-z0-9_]+)"/g)) {
    const name = match[1]!;
    if (!(name in document.components.schemas)) missing[name] = { not: {}, description: `${name}: not in BTCPay's published templates` };
  }
  return missing;
}

/**
 * A document schema as ajv reads it: local `$ref`s pointed at the registered document, `nullable`
 * read as OpenAPI 3.0 means it, `additionalProperties: false` dropped (see the file's comment).
 * `isMap`: `node` is a map of names to schemas (`components.schemas`, `properties`).
 */
function prepare(node: any, isMap: boolean): any {
  if (Array.isArray(node)) return node.map((item) => prepare(item, false));
  if (typeof node !== 'object' || node === null) return node;
  if (isMap) return Object.fromEntries(Object.entries(node).map(([name, schema]) => [name, prepare(schema, false)]));
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node as JsonObject)) {
    if (key === 'nullable') continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (DATA_KEYS.has(key)) out[key] = value;
    else if (key === '$ref' && typeof value === 'string' && value.startsWith('#/')) out[key] = `${DOCUMENT_ID}${value}`;
    else out[key] = prepare(value, key === 'properties' || key === 'patternProperties' || key === 'definitions');
  }
  return node.nullable === true ? { anyOf: [out, { type: 'null' }] } : out;
}

import { STATUS_CODES } from 'node:http';
import Type, { type TSchema } from 'typebox';
import { coreErrors } from '../errors/core-errors.js';
import { describeCatalogue, type ErrorCatalogue, type ErrorSpec } from '@gw/chain-api';
import { SIGNATURE_WINDOW_SECONDS, type SignedQueryPolicy } from './request-signature.js';
import { isRetrySafe, type RouteDefinition } from './route.js';
import { OpenApiSchemaError, SchemaComponents, toJsonSchema, type JsonSchema } from './openapi-schema.js';

export { OpenApiSchemaError, type JsonSchema } from './openapi-schema.js';

/** An OpenAPI 3.1 document as plain JSON. */
export type OpenApiDocument = {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description?: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, Record<string, unknown>>;
  readonly [key: string]: unknown;
};

/**
 * The operation extension saying whether a client may retry the operation with a new signature
 * ({@link isRetrySafe}); `true` or `false` on every operation.
 */
export const RETRY_SAFE_EXTENSION = 'x-retry-safe';

/** Any catalogue made with `defineErrors`. */
export type AnyErrorCatalogue = ErrorCatalogue<Record<string, ErrorSpec>>;

/** What the document is built from. */
export interface OpenApiOptions {
  /** The mounted routes (`kernel.routes`); `hidden` ones are left out. */
  readonly routes: readonly RouteDefinition[];
  /** Error catalogues that give each error code its status: every enabled plugin's (the kernel's own are always included). */
  readonly errorCatalogues: readonly AnyErrorCatalogue[];
  /** `info.version`. */
  readonly version: string;
  /** `info.title`; default `Gateway API`. */
  readonly title?: string;
  /** Public base URL (`http.baseUrl`); becomes the only entry of `servers` when set. */
  readonly baseUrl?: string;
  /** Descriptions of tags by name, for the document's `tags` list. */
  readonly tagDescriptions?: Readonly<Record<string, string>>;
  /** `security.signedQuery`: which signing forms the text says this gateway accepts; default `optional`. */
  readonly signedQuery?: SignedQueryPolicy;
}

/**
 * The JSON body of every error response (docs/errors.md). The same schema documents errors in the
 * OpenAPI document and checks error responses in tests.
 */
export const ErrorBodySchema = Type.Object(
  {
    error_code: Type.String({ description: 'Stable machine-readable code; branch on this, never on `message`.' }),
    message: Type.String({ description: 'Human-readable text.' }),
    request_id: Type.String({ description: 'Same value as the `X-Request-Id` response header.' }),
    details: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Structured details of some errors, e.g. `field` and `issues` of `validation_error`.' }),
    ),
  },
  { additionalProperties: false, description: 'The error envelope every failed request gets.' },
);

/** Why a route may answer with an error code, for the response description. */
export interface RouteErrorCode {
  readonly code: string;
  readonly status: number;
  readonly message: string;
}

// The signed-request authenticator's failures (plugins/tenancy signed-request-authenticator.ts,
// docs/decisions.md 4) plus the per-project rate limit a signed caller can hit.
const SIGNED_AUTH_ERRORS = [
  'auth_invalid',
  'signature_invalid',
  'timestamp_out_of_window',
  'key_revoked',
  'key_suspended',
  'project_suspended',
  'permission_denied',
  'rate_limit_exceeded',
];
// Authenticators the kernel does not describe yet (PAT, OAuth): a bad or missing token, or a token
// without the right to the resource.
const OTHER_AUTH_ERRORS = ['auth_invalid', 'permission_denied', 'rate_limit_exceeded'];

const SIGNED_SCHEMES = ['signedProjectId', 'signedTimestamp', 'signedSignature'] as const;

/**
 * Every code of the kernel's catalogue and the given ones, with its spec; refuses one code declared
 * with two statuses (as scripts/generate-errors-doc.ts does).
 */
export function errorSpecs(catalogues: readonly AnyErrorCatalogue[]): Map<string, ErrorSpec> {
  const specs = new Map<string, ErrorSpec>();
  for (const catalogue of [coreErrors, ...catalogues]) {
    for (const [code, spec] of Object.entries(describeCatalogue(catalogue as AnyErrorCatalogue).entries)) {
      const existing = specs.get(code);
      if (existing && existing.status !== spec.status) {
        throw new Error(`error code "${code}" is declared with statuses ${existing.status} and ${spec.status}`);
      }
      if (!existing) specs.set(code, spec);
    }
  }
  return specs;
}

/**
 * The error codes a route can answer with, in the order the kernel checks them: authentication,
 * access guards, body reading and input validation, the draining check, then the route's own
 * `errors`. Each with its catalogued status; a code no catalogue declares is an error.
 */
export function routeErrorCodes(route: RouteDefinition, specs: ReadonlyMap<string, ErrorSpec>): RouteErrorCode[] {
  const codes: string[] = [];
  if (route.auth === 'signed') codes.push(...SIGNED_AUTH_ERRORS);
  else if (route.auth !== 'none') codes.push(...OTHER_AUTH_ERRORS);
  const access = route.access;
  if (access && (access.projectKind || access.projectParam || access.write)) codes.push('permission_denied');
  if (access?.projectParam) codes.push('sandbox_key_against_production_project', 'production_key_against_sandbox_project');
  else if (access?.crossModeByKey) codes.push('production_key_against_sandbox_project');
  if (access?.projectKind === 'production') codes.push('production_project_required');
  // With crossModeByKey the cross-mode check answers a non-sandbox credential before the kind guard.
  if (access?.projectKind === 'sandbox' && !access.crossModeByKey) codes.push('sandbox_project_required');
  if (access?.write) codes.push('subscription_expired');
  // The body reader reads every body but GET's; a route without a body schema still refuses one.
  if (route.method !== 'GET') codes.push('payload_too_large', 'unsupported_media_type');
  if (route.params || route.query || route.body || route.method !== 'GET') codes.push('validation_error');
  // Mirrors the kernel's draining check, which lets only /healthz through.
  if (!route.path.startsWith('/healthz')) codes.push('service_unavailable');
  codes.push(...(route.errors ?? []));
  const out: RouteErrorCode[] = [];
  for (const code of new Set(codes)) {
    const spec = specs.get(code);
    if (!spec) throw new Error(`route ${route.method} ${route.path} lists error code "${code}", which no error catalogue declares`);
    out.push({ code, status: spec.status, message: spec.message });
  }
  return out;
}

/** Koa `:param` segments in OpenAPI form: `/api/v1/invoices/:id` → `/api/v1/invoices/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_$][A-Za-z0-9_$]*)/g, '{$1}');
}

/** Names of the path parameters, in order. */
export function pathParamNames(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z_$][A-Za-z0-9_$]*)/g)].map((m) => m[1]!);
}

/**
 * The route's operationId: its own, else method plus the path after `/api/v1` in camel case, with
 * parameters as `By<Name>` (`GET /api/v1/invoices/:id` → `getInvoicesById`, `GET /healthz` →
 * `getHealthz`).
 */
export function operationIdOf(route: RouteDefinition): string {
  if (route.operationId) return route.operationId;
  const words = route.path
    .replace(/^\/api\/v1(?=\/|$)/, '')
    .split('/')
    .filter(Boolean)
    .map((segment) => (segment.startsWith(':') ? `By${pascal(segment.slice(1))}` : pascal(segment)));
  return `${route.method.toLowerCase()}${words.join('')}`;
}

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** The media type and schema of a declared response body (`contentMediaType` on string schemas). */
function responseContent(schema: JsonSchema): { mediaType: string; schema: JsonSchema } {
  const mediaType = schema['contentMediaType'];
  if (schema['type'] === 'string' && typeof mediaType === 'string') {
    const { contentMediaType: _ignored, ...rest } = schema;
    return { mediaType, schema: rest };
  }
  return { mediaType: 'application/json', schema };
}

function schemaOf(schema: TSchema): Record<string, unknown> {
  return schema as unknown as Record<string, unknown>;
}

/**
 * Builds the OpenAPI 3.1 document of a kernel's mounted routes from their TypeBox schemas: paths in
 * OpenAPI form, path and query parameters, JSON request bodies, declared responses, and for every
 * operation the error responses it can produce (authentication, access guards, validation, its
 * own `errors`), each an `Error` envelope listing the possible codes. Throws when a schema cannot
 * be expressed (e.g. a bigint type), a route lists an uncatalogued error code, or two operations
 * share an operationId.
 */
export function buildOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const specs = errorSpecs(options.errorCatalogues);
  const components = new SchemaComponents();
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Map<string, string>();
  const tags: string[] = [];
  let usesSigned = false;
  const otherAuthenticators = new Set<string>();

  for (const route of options.routes) {
    if (route.hidden) continue;
    const name = `${route.method} ${route.path}`;
    const operationId = operationIdOf(route);
    const clash = operationIds.get(operationId);
    if (clash) throw new Error(`routes ${clash} and ${name} have the same operationId "${operationId}"; give one an explicit operationId`);
    operationIds.set(operationId, name);
    for (const tag of route.tags ?? []) if (!tags.includes(tag)) tags.push(tag);

    const operation: Record<string, unknown> = { operationId, summary: route.summary };
    const description = [route.description, accessText(route)].filter(Boolean).join('\n\n');
    if (description) operation['description'] = description;
    if (route.tags && route.tags.length > 0) operation['tags'] = [...route.tags];
    operation[RETRY_SAFE_EXTENSION] = isRetrySafe(route);

    if (route.auth === 'none') {
      operation['security'] = [];
    } else if (route.auth === 'signed') {
      usesSigned = true;
      operation['security'] = [Object.fromEntries(SIGNED_SCHEMES.map((scheme) => [scheme, []]))];
    } else {
      otherAuthenticators.add(route.auth);
      operation['security'] = [{ [route.auth]: [] }];
    }

    const parameters = [...pathParameters(route, name, components), ...queryParameters(route, name, components)];
    if (parameters.length > 0) operation['parameters'] = parameters;

    if (route.body) {
      const schema = toJsonSchema(route.body, `${name} body`, components);
      const hasRequired = Array.isArray(schema['required']) && schema['required'].length > 0;
      const body: Record<string, unknown> = {
        required: route.method === 'POST' || hasRequired,
        content: { 'application/json': { schema } },
      };
      if (typeof schema['description'] === 'string') body['description'] = schema['description'];
      operation['requestBody'] = body;
    }

    operation['responses'] = responses(route, name, specs, components);
    (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation;
  }

  const securitySchemes: Record<string, unknown> = {};
  if (usesSigned) Object.assign(securitySchemes, signedSecuritySchemes(options.signedQuery ?? 'optional'));
  for (const authenticator of otherAuthenticators) {
    securitySchemes[authenticator] = {
      type: 'http',
      scheme: 'bearer',
      description: `Authenticator \`${authenticator}\`: a bearer token in \`Authorization\`.`,
    };
  }

  const schemas: Record<string, unknown> = { Error: toJsonSchema(ErrorBodySchema, 'Error', components) };
  for (const [schemaName, schema] of components.schemas) {
    if (schemaName in schemas) throw new OpenApiSchemaError(`components.schemas.${schemaName}`, 'the name is reserved');
    schemas[schemaName] = schema;
  }

  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: { title: options.title ?? 'Gateway API', version: options.version, description: infoDescription(options.signedQuery ?? 'optional') },
  };
  if (options.baseUrl) document['servers'] = [{ url: options.baseUrl }];
  document['tags'] = tags.map((tag) => {
    const text = options.tagDescriptions?.[tag];
    return text ? { name: tag, description: text } : { name: tag };
  });
  document['paths'] = paths;
  document['components'] = {
    schemas,
    headers: {
      RequestId: { description: "The request id: the caller's own `X-Request-Id` when sane, else a new ULID.", schema: { type: 'string' } },
      RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
    },
    securitySchemes,
  };
  return document as OpenApiDocument;
}

function pathParameters(route: RouteDefinition, name: string, components: SchemaComponents): Record<string, unknown>[] {
  const properties = (route.params ? schemaOf(route.params)['properties'] : undefined) as Record<string, TSchema> | undefined;
  return pathParamNames(route.path).map((param) => {
    const declared = properties?.[param];
    const schema = declared ? toJsonSchema(declared, `${name} params.${param}`, components) : { type: 'string' };
    return parameter(param, 'path', true, schema);
  });
}

function queryParameters(route: RouteDefinition, name: string, components: SchemaComponents): Record<string, unknown>[] {
  if (!route.query) return [];
  const query = toJsonSchema(route.query, `${name} query`, components);
  const properties = query['properties'] as Record<string, JsonSchema> | undefined;
  if (query['type'] === 'object' && properties) {
    const required = new Set((query['required'] as string[] | undefined) ?? []);
    return Object.entries(properties).map(([param, schema]) => parameter(param, 'query', required.has(param), schema));
  }
  // A query schema that is not a plain object of fields (a union, say): one form-exploded object.
  return [{ name: 'query', in: 'query', style: 'form', explode: true, schema: query }];
}

function parameter(name: string, location: 'path' | 'query', required: boolean, schema: JsonSchema): Record<string, unknown> {
  const out: Record<string, unknown> = { name, in: location, required };
  if (typeof schema['description'] === 'string') out['description'] = schema['description'];
  if (schema['deprecated'] === true) out['deprecated'] = true;
  out['schema'] = schema;
  return out;
}

function responses(route: RouteDefinition, name: string, specs: ReadonlyMap<string, ErrorSpec>, components: SchemaComponents): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  const requestIdHeader = { 'X-Request-Id': { $ref: '#/components/headers/RequestId' } };
  for (const [status, tschema] of Object.entries(route.responses ?? {})) {
    const schema = toJsonSchema(tschema, `${name} response ${status}`, components);
    const { mediaType, schema: body } = responseContent(schema);
    const response: Record<string, unknown> = {
      description: typeof schema['description'] === 'string' ? schema['description'] : (STATUS_CODES[Number(status)] ?? `Status ${status}`),
      headers: { ...requestIdHeader },
    };
    // 204 and 304 carry no body by definition.
    if (status !== '204' && status !== '304') response['content'] = { [mediaType]: { schema: body } };
    out[status] = response;
  }
  if (!Object.keys(out).some((status) => status.startsWith('2'))) {
    out['2XX'] = { description: 'Success; the response body is not described.', headers: { ...requestIdHeader } };
  }

  const byStatus = new Map<number, RouteErrorCode[]>();
  for (const error of routeErrorCodes(route, specs)) {
    const list = byStatus.get(error.status) ?? [];
    list.push(error);
    byStatus.set(error.status, list);
  }
  for (const [status, errors] of [...byStatus].sort(([a], [b]) => a - b)) {
    const errorSchema = {
      allOf: [{ $ref: '#/components/schemas/Error' }, { properties: { error_code: { enum: errors.map((e) => e.code) } } }],
    };
    const lines = errors.map((e) => `- \`${e.code}\`: ${e.message}`).join('\n');
    const headers: Record<string, unknown> = { ...requestIdHeader };
    if (errors.some((e) => specs.get(e.code)?.retryAfter !== undefined)) headers['Retry-After'] = { $ref: '#/components/headers/RetryAfter' };
    const declared = out[String(status)];
    if (declared) {
      // The route documents its own body for this status (readiness 503, say): either may come.
      const content = declared['content'] as Record<string, { schema: JsonSchema }> | undefined;
      const json = content?.['application/json'];
      if (json) json.schema = { anyOf: [json.schema, errorSchema] };
      else declared['content'] = { ...content, 'application/json': { schema: errorSchema } };
      declared['description'] = `${String(declared['description'])}\n\nOr an error:\n${lines}`;
      declared['headers'] = { ...(declared['headers'] as object), ...headers };
      continue;
    }
    out[String(status)] = {
      description: `${STATUS_CODES[status] ?? `Status ${status}`}. One of:\n${lines}`,
      headers,
      content: { 'application/json': { schema: errorSchema } },
    };
  }
  return out;
}

function accessText(route: RouteDefinition): string | undefined {
  const access = route.access;
  if (!access) return undefined;
  const parts: string[] = [];
  if (access.projectKind === 'production') parts.push('production and testnet projects only');
  if (access.projectKind === 'sandbox') parts.push('sandbox projects only');
  if (access.crossModeByKey) parts.push('a production or testnet secret is refused with production_key_against_sandbox_project');
  if (access.projectParam) parts.push(`the \`${access.projectParam}\` path parameter must be the signing project`);
  if (access.write) parts.push('a write: needs an active operator subscription unless the project is a sandbox');
  return parts.length > 0 ? `**Access:** ${parts.join('; ')}.` : undefined;
}

function signedSecuritySchemes(signedQuery: SignedQueryPolicy): Record<string, unknown> {
  const window = SIGNATURE_WINDOW_SECONDS;
  return {
    signedProjectId: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Project-Id',
      description: 'The project id (ULID) the API key belongs to. Sent together with `X-Timestamp` and `X-Signature`.',
    },
    signedTimestamp: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Timestamp',
      description: `Unix time in whole seconds; must be within ${window} seconds of server time, else 401 \`timestamp_out_of_window\`.`,
    },
    signedSignature: {
      type: 'apiKey',
      in: 'header',
      name: 'X-Signature',
      description:
        'Lowercase hex HMAC-SHA256, keyed with the API secret, of the signing string ' +
        '`METHOD + "\\n" + TARGET + "\\n" + TIMESTAMP + "\\n" + RAW_BODY`: the upper-case method, the target, the ' +
        '`X-Timestamp` value, and the exact request body text (empty when there is none). ' +
        targetText(signedQuery),
    },
  };
}

/** What TARGET is, under the gateway's `security.signedQuery` (spec 5.1; docs/security.md). */
function targetText(signedQuery: SignedQueryPolicy): string {
  const withQuery = 'the URL pathname exactly as sent plus, when the URL has a query, `?` and the raw query string (no decoding or reordering)';
  return signedQuery === 'required'
    ? `TARGET is ${withQuery}; this gateway requires that form, so the pathname alone does not verify when there is a query.`
    : `TARGET is either ${withQuery}, or the pathname alone; this gateway accepts both. Signing the query is recommended: ` +
        'it keeps a captured read from being sent again with other filters, and an operator may require it.';
}

function infoDescription(signedQuery: SignedQueryPolicy): string {
  return [
    'Generated at run time from the routes this gateway has mounted and their TypeBox schemas.',
    '',
    '**Authentication.** Routes marked with the `signed*` security schemes take a signed request: send',
    '`X-Project-Id`, `X-Timestamp` (Unix seconds) and `X-Signature`, the lowercase hex HMAC-SHA256 under the',
    'API secret of `METHOD\\nTARGET\\nTIMESTAMP\\nRAW_BODY` (raw body exactly as sent, empty when none).',
    targetText(signedQuery),
    `The timestamp must be within ${SIGNATURE_WINDOW_SECONDS} seconds of server time.`,
    '',
    '**Repeated requests.** An identical copy of a signed write, or of an event-stream read, sent within the window',
    '(a retry after a lost answer) gets the first answer again, status and body, with `Idempotent-Replayed: true`,',
    'and has no second effect. A copy arriving while the first still runs waits for its answer. A first answer of',
    '`429` or `5xx` is not kept: the copy runs. To do the same thing twice on purpose, sign it again with another timestamp.',
    '',
    '**Errors.** Every failure is `{ "error_code", "message", "request_id", "details"? }` with the status of',
    'its code; each operation lists the codes it can return. `429` and `503` carry `Retry-After`.',
    '',
    '**Retries.** An operation with `x-retry-safe: true` (every read, and invoice creation, idempotent on',
    '`external_id`) may be sent again, newly signed, after a lost answer, a `429` or a `503`; others may not.',
  ].join('\n');
}

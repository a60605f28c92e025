/**
 * BTCPay's published Greenfield OpenAPI document, merged from its templates as BTCPay merges them,
 * and a check of an answer of this gateway against the operation it answers (ajv). Tests of every
 * area validate each answer with it; the templates are third-party test peers, read where they are
 * (`GW_BTCPAY_PEERS`, else a `shared/peers/btcpay` folder above the repository), never copied in.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import type { ExecutionContext } from 'ava';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Where the workplace keeps the peers (`/work/shared/peers/btcpay`). */
const WORKPLACE_PEERS = '/work/shared/peers/btcpay';

/**
 * The folder of BTCPay's published material (`swagger/`, `greenfield-php/`): `GW_BTCPAY_PEERS`, a
 * `shared/peers/btcpay` folder above this file, or the workplace's.
 */
export function btcpayPeersDir(): string {
  const given = process.env['GW_BTCPAY_PEERS'];
  if (given) return resolve(given);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'shared', 'peers', 'btcpay');
    if (existsSync(join(candidate, 'swagger', 'swagger.template.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  // A clone elsewhere on a machine of this workplace (CI's clean clone) finds the shared folder there.
  if (existsSync(join(WORKPLACE_PEERS, 'swagger', 'swagger.template.json'))) return WORKPLACE_PEERS;
  throw new Error('BTCPay peers not found: set GW_BTCPAY_PEERS to the folder holding swagger/ and greenfield-php/');
}

/** The merged document: `swagger.template.json` with every other template's paths, components and tags. */
export function mergedGreenfieldDocument(swaggerDir = join(btcpayPeersDir(), 'swagger')): JsonObject {
  const read = (name: string) => JSON.parse(readFileSync(join(swaggerDir, name), 'utf8')) as JsonObject;
  const document = read('swagger.template.json');
  const paths = ((document['paths'] as JsonObject | undefined) ?? {}) as JsonObject;
  const components = document['components'] as JsonObject;
  const tags = ((document['tags'] as Json[] | undefined) ?? []) as Json[];
  for (const name of readdirSync(swaggerDir)
    .filter((file) => file.startsWith('swagger.template.') && file.endsWith('.json') && file !== 'swagger.template.json')
    .sort()) {
    const part = read(name);
    for (const [path, operations] of Object.entries((part['paths'] as JsonObject | undefined) ?? {})) {
      paths[path] = { ...((paths[path] as JsonObject | undefined) ?? {}), ...(operations as JsonObject) };
    }
    for (const [section, entries] of Object.entries((part['components'] as JsonObject | undefined) ?? {})) {
      components[section] = { ...((components[section] as JsonObject | undefined) ?? {}), ...(entries as JsonObject) };
    }
    tags.push(...(((part['tags'] as Json[] | undefined) ?? []) as Json[]));
  }
  return { ...document, paths, components, tags };
}

/** One operation of the document. */
export interface GreenfieldOperation {
  readonly method: string;
  /** The templated path, e.g. `/api/v1/stores/{storeId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly responses: JsonObject;
}

/** What was answered, as `greenfield()` of the test helpers returns it. */
export interface AnswerToCheck {
  readonly status: number;
  readonly text: string;
  readonly body: unknown;
}

const SCHEMA_ID = 'https://greenfield.invalid/document';
const REF_PREFIX = '#/components/schemas/';

/**
 * The document compiled for checks. BTCPay's templates are OpenAPI 3.0 written for people and
 * code generators; three of their habits would reject BTCPay's own answers under a strict JSON
 * Schema validator, so they are read as BTCPay means them: an `allOf` of object schemas is one
 * object with the members' properties together (a base with `additionalProperties: false`
 * extended by `id`); `oneOf` among alternatives that overlap is `anyOf`; `additionalProperties:
 * false` on a schema with no properties but alternatives applies to the alternatives. `nullable`
 * becomes a `null` alternative.
 */
export class GreenfieldDocument {
  readonly document: JsonObject;
  private readonly ajv: Ajv;
  private readonly schemas: JsonObject;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: JsonObject = mergedGreenfieldDocument()) {
    this.document = document;
    const raw = ((document['components'] as JsonObject)['schemas'] ?? {}) as JsonObject;
    this.schemas = {};
    for (const [name, schema] of Object.entries(raw)) this.schemas[name] = this.normalise(schema, raw, new Set([name]));
    this.ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false });
    this.ajv.addFormat('decimal', /^-?\d+(?:\.\d+)?$/);
    for (const format of ['url', 'uri']) this.ajv.addFormat(format, (value: string) => URL.canParse(value));
    for (const format of ['double', 'int32', 'integer', 'binary', 'seconds', 'days', 'minutes', 'unix timestamp in seconds', 'date-time', 'email']) {
      this.ajv.addFormat(format, true);
    }
    this.ajv.addSchema({ $id: SCHEMA_ID, components: { schemas: this.schemas } });
  }

  /** Every operation, by `METHOD /templated/path`. */
  operations(): GreenfieldOperation[] {
    const found: GreenfieldOperation[] = [];
    for (const [path, item] of Object.entries(this.document['paths'] as JsonObject)) {
      for (const [method, operation] of Object.entries(item as JsonObject)) {
        const op = operation as JsonObject;
        if (typeof op !== 'object' || op === null || !('responses' in op)) continue;
        found.push({
          method: method.toUpperCase(),
          path,
          operationId: String(op['operationId'] ?? `${method} ${path}`),
          responses: op['responses'] as JsonObject,
        });
      }
    }
    return found;
  }

  /**
   * The operation a concrete call answers (`/api/v1/stores/abc/invoices`, no prefix, no query): the
   * template whose literal segments match, the one with most literal segments when several do.
   */
  operation(method: string, path: string): GreenfieldOperation | undefined {
    const segments = path.split('?')[0]!.split('/');
    let best: { op: GreenfieldOperation; literals: number } | undefined;
    for (const op of this.operations()) {
      if (op.method !== method.toUpperCase()) continue;
      const template = op.path.split('/');
      if (template.length !== segments.length) continue;
      let literals = 0;
      const matches = template.every((part, i) => {
        if (part.startsWith('{') && part.endsWith('}')) return segments[i] !== '';
        literals++;
        return part === segments[i];
      });
      if (matches && (!best || literals > best.literals)) best = { op, literals };
    }
    return best?.op;
  }

  /**
   * What is wrong with an answer to `method path` (empty: nothing): the status must be one the
   * operation documents (or its `default`, or any error status: BTCPay documents few of them),
   * and the body must validate against the status's schema. An error without a documented schema
   * is checked against `ProblemDetails`, a 422 against `ValidationProblemDetails`.
   */
  problems(method: string, path: string, answer: AnswerToCheck): string[] {
    const op = this.operation(method, path);
    if (!op) return [`no operation ${method} ${path} in BTCPay's document`];
    const response = (op.responses[String(answer.status)] ?? (answer.status >= 400 ? undefined : op.responses['default'])) as JsonObject | undefined;
    if (!response && answer.status < 400) return [`${op.operationId}: status ${answer.status} is not documented`];
    let schema = (((response?.['content'] as JsonObject | undefined)?.['application/json'] as JsonObject | undefined)?.['schema'] ?? undefined) as
      Json | undefined;
    if (schema === undefined && answer.status >= 400)
      schema = { $ref: `${REF_PREFIX}${answer.status === 422 ? 'ValidationProblemDetails' : 'ProblemDetails'}` };
    if (schema === undefined)
      return answer.text === '' || answer.status >= 400
        ? []
        : [`${op.operationId}: status ${answer.status} documents no body, got ${answer.text.slice(0, 200)}`];
    if (answer.body === undefined) return [`${op.operationId}: status ${answer.status} needs a JSON body, got ${JSON.stringify(answer.text.slice(0, 200))}`];
    const validate = this.validator(schema);
    if (validate(answer.body)) return [];
    return (validate.errors ?? []).map(
      (error) => `${op.operationId} ${answer.status}: ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  }

  /** Whether `value` validates against the component schema `name` (e.g. `InvoiceData`); the problems otherwise. */
  schemaProblems(name: string, value: unknown): string[] {
    const validate = this.validator({ $ref: `${REF_PREFIX}${name}` });
    return validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${name}: ${error.instancePath || '(root)'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }

  private validator(schema: Json): ValidateFunction {
    const key = JSON.stringify(schema);
    let validate = this.validators.get(key);
    if (!validate) {
      const normalised = this.normalise(schema, (this.document['components'] as JsonObject)['schemas'] as JsonObject, new Set());
      validate = this.ajv.compile({ $id: `${SCHEMA_ID}/check/${this.validators.size}`, ...(rebase(normalised) as JsonObject) });
      this.validators.set(key, validate);
    }
    return validate;
  }

  /** The schema read as BTCPay means it (see the class comment); `seen` stops reference cycles. */
  private normalise(schema: Json, raw: JsonObject, seen: ReadonlySet<string>): Json {
    if (Array.isArray(schema)) return schema.map((item) => this.normalise(item, raw, seen));
    if (schema === null || typeof schema !== 'object') return schema;
    const ref = schema['$ref'];
    // The published templates name a few schemas of files they do not include (the on-chain and
    // Lightning payment method configs, ApplicationUserData): those accept anything.
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX) && raw[ref.slice(REF_PREFIX.length)] === undefined) {
      return { description: `${ref.slice(REF_PREFIX.length)} is not in the published templates` };
    }
    let out: JsonObject = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, this.normalise(sub, raw, seen)]));
      } else if (key === 'example' || key === 'examples') {
        continue;
      } else {
        out[key === 'oneOf' ? 'anyOf' : key] = this.normalise(value, raw, seen);
      }
    }
    if (Array.isArray(out['allOf'])) {
      const members = (out['allOf'] as Json[]).map((member) => this.objectMember(member, raw, seen));
      if (members.length > 0 && members.every((member) => member !== undefined)) {
        const { allOf: _allOf, ...rest } = out;
        const properties: JsonObject = {};
        const required = new Set<string>();
        let closed = false;
        for (const member of members as JsonObject[]) {
          Object.assign(properties, member['properties'] ?? {});
          for (const name of (member['required'] as string[] | undefined) ?? []) required.add(name);
          if (member['additionalProperties'] === false) closed = true;
        }
        out = { ...rest, type: 'object', properties: { ...properties, ...((rest['properties'] as JsonObject | undefined) ?? {}) } };
        if (required.size > 0) out['required'] = [...required];
        if (closed) out['additionalProperties'] = false;
      }
    }
    if (out['additionalProperties'] === false && out['properties'] === undefined && (out['anyOf'] !== undefined || out['allOf'] !== undefined)) {
      delete out['additionalProperties'];
    }
    if (out['nullable'] === true) {
      const { nullable: _nullable, ...rest } = out;
      out = { anyOf: [{ type: 'null' }, rest] };
    }
    return out;
  }

  /** An `allOf` member as an object schema with its properties (a reference followed), or undefined when it is not one. */
  private objectMember(member: Json, raw: JsonObject, seen: ReadonlySet<string>): JsonObject | undefined {
    if (member === null || typeof member !== 'object' || Array.isArray(member)) return undefined;
    const ref = member['$ref'];
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
      const name = ref.slice(REF_PREFIX.length);
      if (seen.has(name) || raw[name] === undefined) return undefined;
      const target = this.normalise(raw[name]!, raw, new Set([...seen, name]));
      return this.objectMember(unwrapNullable(target), raw, seen);
    }
    const unwrapped = unwrapNullable(member);
    if (unwrapped === null || typeof unwrapped !== 'object' || Array.isArray(unwrapped)) return undefined;
    const isObject = unwrapped['type'] === 'object' || (unwrapped['type'] === undefined && unwrapped['properties'] !== undefined);
    return isObject && unwrapped['anyOf'] === undefined && unwrapped['allOf'] === undefined ? unwrapped : undefined;
  }
}

/** The non-null alternative of a schema made nullable by `normalise`. */
function unwrapNullable(schema: Json): Json {
  if (schema && typeof schema === 'object' && !Array.isArray(schema) && Array.isArray(schema['anyOf']) && schema['anyOf'].length === 2) {
    const [first, second] = schema['anyOf'];
    if (first && typeof first === 'object' && !Array.isArray(first) && first['type'] === 'null' && Object.keys(first).length === 1) return second ?? schema;
  }
  return schema;
}

/** Local references (`#/components/...`) made to point into the registered document. */
function rebase(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${SCHEMA_ID}${value}` : rebase(value),
    ]),
  );
}

let shared: GreenfieldDocument | undefined;

/** The merged document, compiled once per test process. */
export function greenfieldDocument(): GreenfieldDocument {
  shared ??= new GreenfieldDocument();
  return shared;
}

/**
 * Asserts that an answer to `method path` (the path after the prefix, e.g. `/api/v1/stores`) is
 * one BTCPay's document allows: a documented status and a body valid against its schema.
 */
export function assertGreenfieldAnswer(t: ExecutionContext, method: string, path: string, answer: AnswerToCheck): void {
  t.deepEqual(greenfieldDocument().problems(method, path, answer), [], `${method} ${path} → ${answer.status} ${answer.text.slice(0, 500)}`);
}

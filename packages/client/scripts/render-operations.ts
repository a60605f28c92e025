/**
 * Renders the TypeScript operation table of @gw/client from an OpenAPI 3.1 document: for every
 * operation with the signed-request security requirement, its method, path, path parameters, query,
 * request body and success responses as TypeScript types. Pure (document in, source text out), so
 * the generator script and the drift test render the same way.
 */

/** The subset of JSON Schema 2020-12 the gateway's document uses. */
type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  items?: Schema | false;
  prefixItems?: Schema[];
  $ref?: string;
  description?: string;
  [key: string]: unknown;
};

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}

interface Operation {
  operationId: string;
  summary?: string;
  security?: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  /** Whether a client may send the operation again, newly signed (kernel `isRetrySafe`). */
  'x-retry-safe'?: boolean;
}

interface Document {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** What rendering reads besides the schema: `$ref` targets, and the shared shapes rendered by name. */
interface Context {
  readonly document?: Document;
  /** {@link shapeKey} → type name, for the object shapes that stand in several places (see {@link sharedShapes}). */
  readonly shared: ReadonlyMap<string, string>;
}

/** An object shape's identity: identical schemas, read the same way, render identically. */
function shapeKey(schema: Schema, input: boolean): string {
  return `${input ? 'in' : 'out'}:${JSON.stringify(schema)}`;
}

/** An object with at least this many properties is worth a name when it stands in several places. */
const SHARED_SHAPE_MIN_PROPERTIES = 4;

interface SignedOperation {
  readonly path: string;
  readonly method: string;
  readonly op: Operation;
}

/** The operations of the document with the signed-request security requirement, in document order. */
function signedOperations(document: Document): SignedOperation[] {
  const found: SignedOperation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (op && (op.security ?? []).some((requirement) => 'signedSignature' in requirement)) found.push({ path, method, op });
    }
  }
  return found;
}

function successResponses(op: Operation): [string, Schema | undefined][] {
  return Object.entries(op.responses)
    .filter(([status]) => /^2\d\d$/.test(status))
    .map(([status, response]) => [status, response.content?.['application/json']?.schema]);
}

/**
 * The object shapes that stand in more than one place of the operations' bodies and answers (a
 * webhook event in its list and in its retrieve), each named after its first place: the file then
 * states each shape once. Greedy, largest first, counting again after each choice, so a shape that
 * only repeats inside a named one is not named for that.
 */
function sharedShapes(document: Document, operations: SignedOperation[]): Map<string, string> {
  const shared = new Map<string, string>();
  const taken = new Set<string>();
  for (;;) {
    const candidates = new Map<string, { count: number; size: number; name: string; order: number }>();
    const expanded = new Set<string>();
    const visit = (schema: Schema | boolean | undefined, input: boolean, name: string): void => {
      if (!schema || schema === true) return;
      if (schema.$ref) return visit(document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')], input, name);
      const key = shapeKey(schema, input);
      if (shared.has(key)) {
        if (expanded.has(key)) return;
        expanded.add(key);
      } else if (Object.keys(schema.properties ?? {}).length >= SHARED_SHAPE_MIN_PROPERTIES) {
        const seen = candidates.get(key);
        if (seen) seen.count += 1;
        else candidates.set(key, { count: 1, size: key.length, name, order: candidates.size });
      }
      for (const [property, child] of Object.entries(schema.properties ?? {})) visit(child, input, name + pascal(property));
      for (const child of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) visit(child, input, name);
      if (schema.items) visit(schema.items, input, `${name}Item`);
      for (const child of schema.prefixItems ?? []) visit(child, input, `${name}Item`);
      if (typeof schema.additionalProperties === 'object') visit(schema.additionalProperties, input, `${name}Value`);
      for (const child of Object.values(schema.patternProperties ?? {})) visit(child, input, `${name}Value`);
    };
    for (const { op } of operations) {
      visit(op.requestBody?.content?.['application/json']?.schema, true, `${pascal(op.operationId)}Body`);
      for (const [status, schema] of successResponses(op)) visit(schema, false, `${pascal(op.operationId)}${status}`);
    }
    const best = [...candidates].filter(([, c]) => c.count > 1).sort(([, a], [, b]) => b.size - a.size || a.order - b.order)[0];
    if (!best) return shared;
    let name = best[1].name;
    for (let n = 2; taken.has(name); n += 1) name = `${best[1].name}${n}`;
    taken.add(name);
    shared.set(best[0], name);
  }
}

function pascal(text: string): string {
  return text.replace(/(^|[^A-Za-z0-9])([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());
}

export function renderOperations(document: Document): string {
  const operations = signedOperations(document);
  const shared = sharedShapes(document, operations);
  const ctx: Context = { document, shared };
  const out: string[] = [
    "// Generated by scripts/generate-client-types.ts from the gateway's OpenAPI document. Do not edit:",
    '// run `pnpm client:generate`. `pnpm test:all` fails when this file and the document drift.',
    '/* eslint-disable */',
    '',
    '/** Every signed REST operation, by operationId. */',
    'export interface Operations {',
  ];
  const table: string[] = [];
  const definitions = new Map<string, string>();
  // A query of several parameters that several operations take (the invoice search filters) is named too.
  const queries = operations.map(({ op }) => (op.parameters ?? []).filter((p) => p.in === 'query'));
  const queryUses = new Map<string, number>();
  for (const query of queries) queryUses.set(JSON.stringify(query), (queryUses.get(JSON.stringify(query)) ?? 0) + 1);
  const queryNames = new Map<string, string>();
  const queryType = (query: Parameter[], operationId: string, indent: string): string => {
    const key = JSON.stringify(query);
    if (query.length < SHARED_SHAPE_MIN_PROPERTIES || queryUses.get(key)! < 2) return objectOfParameters(query, indent);
    if (!queryNames.has(key)) {
      queryNames.set(key, `${pascal(operationId)}Query`);
      definitions.set(`${pascal(operationId)}Query`, objectOfParameters(query, ''));
    }
    return queryNames.get(key)!;
  };
  // What each operation takes and answers; operations that take and answer the same (a sandbox
  // twin of a production route) share one named signature.
  const signatures = operations.map(({ op }, index) => {
    const params = (op.parameters ?? []).filter((p) => p.in === 'path');
    const query = queries[index]!;
    const body = op.requestBody?.content?.['application/json']?.schema;
    const lines = [
      `  params: ${params.length ? objectOfParameters(params, '  ') : 'never'};`,
      `  query: ${query.length ? queryType(query, op.operationId, '  ') : 'never'};`,
      `  body: ${body ? render(body, '  ', ctx, true, definitions) : 'never'};`,
      '  responses: {',
      ...successResponses(op).map(([status, schema]) => `    ${status}: ${schema ? render(schema, '    ', ctx, false, definitions) : 'undefined'};`),
      '  };',
    ];
    return { params, text: lines.join('\n') };
  });
  const signatureUses = new Map<string, number>();
  for (const { text } of signatures) signatureUses.set(text, (signatureUses.get(text) ?? 0) + 1);
  const signatureNames = new Map<string, string>();
  for (const [index, { path, method, op }] of operations.entries()) {
    const { params, text } = signatures[index]!;
    const head = [`    method: '${method.toUpperCase()}';`, `    path: '${path}';`];
    if (signatureUses.get(text)! > 1) {
      if (!signatureNames.has(text)) {
        signatureNames.set(text, `${pascal(op.operationId)}Signature`);
        definitions.set(`${pascal(op.operationId)}Signature`, `{\n${text}\n}`);
      }
      out.push(`  ${doc(op.summary, '  ')}${op.operationId}: ${signatureNames.get(text)} & {`, ...head, '  };');
    } else {
      out.push(`  ${doc(op.summary, '  ')}${op.operationId}: {`, ...head, text.replace(/^/gm, '  '), '  };');
    }
    table.push(
      `  ${op.operationId}: { method: '${method.toUpperCase()}', path: '${path}', params: [${params.map((p) => `'${p.name}'`).join(', ')}], retrySafe: ${retrySafe(op, method, path)} },`,
    );
  }
  out.push('}', '');
  for (const [name, text] of definitions) out.push(`/** A shape several operations share (named after its first place). */`, `type ${name} = ${text};`, '');
  out.push('/**');
  out.push(" * Method, path template, path parameter names and retry safety (the document's `x-retry-safe`: may the");
  out.push(' * call be sent again, newly signed, after a lost answer, a 429 or a 503) of every operation: the');
  out.push(' * runtime half of {@link Operations}.');
  out.push(' */');
  out.push(
    'export const OPERATIONS = {',
    ...table,
    '} as const satisfies Record<keyof Operations, { method: string; path: string; params: readonly string[]; retrySafe: boolean }>;',
    '',
  );
  return out.join('\n');
}

/** The operation's `x-retry-safe`; a document without it is refused rather than read as "not safe". */
function retrySafe(op: Operation, method: string, path: string): boolean {
  const value = op['x-retry-safe'];
  if (typeof value !== 'boolean') throw new Error(`${method.toUpperCase()} ${path} has no boolean x-retry-safe`);
  return value;
}

function objectOfParameters(parameters: Parameter[], indent: string): string {
  const ctx: Context = { shared: new Map() };
  const lines = parameters.map(
    (p) =>
      `${indent}  ${doc(p.description, `${indent}  `)}${key(p.name)}${p.required && !('default' in p.schema) ? '' : '?'}: ${render(p.schema, `${indent}  `, ctx, false, new Map())};`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/**
 * `input`: a request body, where a property with a default may be left out. `definitions`: the
 * shared shapes rendered so far, by name, in the order first met (rendered at the top level).
 */
function render(schema: Schema | boolean, indent: string, ctx: Context, input: boolean, definitions: Map<string, string>): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = ctx.document?.components?.schemas?.[name];
    if (!target) throw new Error(`unresolvable $ref ${schema.$ref}`);
    return render(target, indent, ctx, input, definitions);
  }
  const sharedName = ctx.shared.get(shapeKey(schema, input));
  if (sharedName !== undefined) {
    if (!definitions.has(sharedName)) {
      definitions.set(sharedName, '');
      const shared = new Map(ctx.shared);
      shared.delete(shapeKey(schema, input));
      definitions.set(sharedName, render(schema, '', { ...ctx, shared }, input, definitions));
    }
    return sharedName;
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((s) => wrap(render(s, indent, ctx, input, definitions))).join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => wrap(render(s, indent, ctx, input, definitions))).join(' & ');
  const type = schema.type;
  if (Array.isArray(type)) return type.map((t) => render({ ...schema, type: t }, indent, ctx, input, definitions)).join(' | ');
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      if (schema.prefixItems) return `[${schema.prefixItems.map((s) => render(s, indent, ctx, input, definitions)).join(', ')}]`;
      return `Array<${schema.items ? render(schema.items, indent, ctx, input, definitions) : 'unknown'}>`;
    case 'object':
    case undefined:
      if (type === undefined && !schema.properties) return 'unknown';
      return renderObject(schema, indent, ctx, input, definitions);
    default:
      throw new Error(`unsupported schema type ${JSON.stringify(type)}`);
  }
}

function renderObject(schema: Schema, indent: string, ctx: Context, input: boolean, definitions: Map<string, string>): string {
  const required = new Set(schema.required ?? []);
  const lines = Object.entries(schema.properties ?? {}).map(
    ([name, property]) =>
      `${indent}  ${doc(property.description, `${indent}  `)}${key(name)}${required.has(name) && !(input && 'default' in property) ? '' : '?'}: ${render(property, `${indent}  `, ctx, input, definitions)};`,
  );
  const extra = schema.additionalProperties;
  const patterns = Object.values(schema.patternProperties ?? {});
  if (extra === true || (extra === undefined && lines.length === 0) || patterns.length > 0) {
    const value = patterns.length ? patterns.map((s) => render(s, `${indent}  `, ctx, input, definitions)).join(' | ') : 'unknown';
    lines.push(`${indent}  [key: string]: ${lines.length ? 'unknown' : value};`);
  } else if (typeof extra === 'object') {
    lines.push(`${indent}  [key: string]: ${lines.length ? 'unknown' : render(extra, `${indent}  `, ctx, input, definitions)};`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function wrap(type: string): string {
  return /^[\w"'[\]<>.-]+$/.test(type) || type.startsWith('{') ? type : `(${type})`;
}

function key(name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
}

function doc(text: string | undefined, indent: string): string {
  if (!text) return '';
  return `/** ${text.replace(/\*\//g, '*\\/').replace(/\n+/g, ' ')} */\n${indent}`;
}

/**
 * The Python client's tables: operationId → (method, path template, path parameter names, query
 * parameter names), in document order, and the operationIds that are safe to retry.
 */
export function renderPythonOperations(document: Document): string {
  const out = [
    "# Generated by scripts/generate-client-types.ts from the gateway's OpenAPI document. Do not edit:",
    '# run `pnpm client:generate`. `pnpm test:all` fails when this file and the document drift.',
    '"""Every signed REST operation: operationId -> (method, path template, path parameters, query parameters)."""',
    '',
    'OPERATIONS = {',
  ];
  const retrySafeIds: string[] = [];
  const tuple = (items: string[]) => (items.length === 0 ? '()' : `(${items.join(', ')}${items.length === 1 ? ',' : ''})`);
  for (const { path, method, op } of signedOperations(document)) {
    const names = (where: string) => (op.parameters ?? []).filter((p) => p.in === where).map((p) => JSON.stringify(p.name));
    out.push(
      `    ${JSON.stringify(op.operationId)}: (${JSON.stringify(method.toUpperCase())}, ${JSON.stringify(path)}, ${tuple(names('path'))}, ${tuple(names('query'))}),`,
    );
    if (retrySafe(op, method, path)) retrySafeIds.push(op.operationId);
  }
  out.push('}', '');
  out.push('', "#: Operations that may be sent again, newly signed, after a lost answer, a 429 or a 503 (the document's x-retry-safe).");
  out.push('RETRY_SAFE = frozenset({', ...retrySafeIds.map((id) => `    ${JSON.stringify(id)},`), '})', '');
  return out.join('\n');
}

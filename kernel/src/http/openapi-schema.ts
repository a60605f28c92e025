import type { TSchema } from 'typebox';

/** A plain JSON Schema 2020-12 object (the OpenAPI 3.1 dialect), safe to serialise. */
export type JsonSchema = { [keyword: string]: unknown };

/** A TypeBox schema that cannot be expressed in the OpenAPI document; names where it occurs. */
export class OpenApiSchemaError extends Error {
  constructor(where: string, problem: string) {
    super(`${where}: ${problem}`);
    this.name = 'OpenApiSchemaError';
  }
}

/**
 * Named schemas hoisted out of TypeBox `$defs` (cyclic types) into `components.schemas`, shared by
 * every conversion of one document so two definitions of one name are caught.
 */
export class SchemaComponents {
  readonly schemas = new Map<string, JsonSchema>();

  add(name: string, schema: JsonSchema, where: string): void {
    const existing = this.schemas.get(name);
    if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
      throw new OpenApiSchemaError(where, `two different schemas are named "${name}"`);
    }
    this.schemas.set(name, schema);
  }
}

// Types JSON has. TypeBox also builds bigint, undefined, void, symbol, function and constructor
// types, which a JSON body can never carry, so a route declaring one is a mistake to report.
const JSON_TYPES = new Set(['null', 'boolean', 'object', 'array', 'number', 'string', 'integer']);

// Keywords whose value is a schema, a list of schemas, or a map of name to schema.
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_MAP_KEYWORDS = new Set(['properties', 'patternProperties', 'dependentSchemas', '$defs']);

/**
 * Converts a TypeBox schema into plain JSON Schema 2020-12 for the OpenAPI document: drops TypeBox's
 * own keys (`~kind`, `~optional`, `~readonly`, ... and symbols), rewrites draft-07 tuples
 * (`items: [...]`, `additionalItems`) as `prefixItems`/`items`, hoists `$defs` into
 * `components.schemas` and points `$ref`s there, and refuses types JSON cannot carry.
 */
export function toJsonSchema(schema: TSchema, where: string, components: SchemaComponents): JsonSchema {
  return convert(schema, where, components) as JsonSchema;
}

function convert(node: unknown, where: string, components: SchemaComponents): JsonSchema | boolean {
  if (typeof node === 'boolean') return node;
  if (typeof node !== 'object' || node === null || Array.isArray(node)) {
    throw new OpenApiSchemaError(where, `expected a schema, found ${JSON.stringify(node)}`);
  }
  const source = node as Record<string, unknown>;
  const out: JsonSchema = {};
  // Object.keys: own enumerable string keys only, so symbol-keyed internals never get through.
  for (const key of Object.keys(source)) {
    if (key.startsWith('~') || key === '$id' || key === '$schema') continue;
    const value = source[key];
    const at = `${where}/${key}`;
    if (key === 'type') {
      checkType(value, at);
      out[key] = value;
    } else if (key === '$ref') {
      out[key] = refTarget(value, at);
    } else if (key === '$defs') {
      for (const [name, definition] of Object.entries(value as Record<string, unknown>)) {
        components.add(name, convert(definition, `${at}/${name}`, components) as JsonSchema, at);
      }
    } else if (key === 'items' && Array.isArray(value)) {
      out['prefixItems'] = value.map((item, i) => convert(item, `${at}/${i}`, components));
    } else if (key === 'additionalItems') {
      if (Array.isArray(source['items'])) out['items'] = convert(value, at, components);
    } else if (SCHEMA_KEYWORDS.has(key)) {
      out[key] = convert(value, at, components);
    } else if (SCHEMA_LIST_KEYWORDS.has(key)) {
      out[key] = (value as unknown[]).map((item, i) => convert(item, `${at}/${i}`, components));
    } else if (SCHEMA_MAP_KEYWORDS.has(key)) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, s]) => [name, convert(s, `${at}/${name}`, components)]));
    } else {
      // Annotations, assertions and instance data (`const`, `enum`, `default`, `examples`).
      out[key] = jsonValue(value, at);
    }
  }
  return out;
}

function checkType(value: unknown, where: string): void {
  const types = Array.isArray(value) ? value : [value];
  for (const type of types) {
    if (typeof type !== 'string' || !JSON_TYPES.has(type)) {
      throw new OpenApiSchemaError(
        where,
        `type ${JSON.stringify(type)} cannot appear in a JSON body; use a string (e.g. base units as a decimal string) or a number`,
      );
    }
  }
}

// TypeBox refers to named types by bare name (`Type.Ref('Node')`, cyclic `$defs`); in the document
// every name lives under components.schemas.
function refTarget(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw new OpenApiSchemaError(where, 'a $ref must be a non-empty string');
  if (value.startsWith('#/components/schemas/')) return value;
  if (/^[A-Za-z0-9._-]+$/.test(value)) return `#/components/schemas/${value}`;
  throw new OpenApiSchemaError(where, `unsupported $ref "${value}"`);
}

function jsonValue(value: unknown, where: string): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new OpenApiSchemaError(where, `${value} is not a JSON number`);
      return value;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value)) return value.map((item, i) => jsonValue(item, `${where}/${i}`));
      if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
        throw new OpenApiSchemaError(where, `a ${(value as object).constructor?.name ?? 'non-plain'} object is not JSON`);
      }
      return Object.fromEntries(Object.keys(value).map((key) => [key, jsonValue((value as Record<string, unknown>)[key], `${where}/${key}`)]));
    default:
      throw new OpenApiSchemaError(where, `a ${typeof value} is not JSON`);
  }
}

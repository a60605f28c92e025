/**
 * fast-check arbitraries from JSON Schema (the subset the OpenAPI document and the MCP tools'
 * input schemas use: type, properties/required/additionalProperties, items, enum, const, anyOf/
 * oneOf/allOf, $ref to components, string length, pattern and date-time format, numeric bounds).
 * `validValue` draws values the schema accepts; `invalidValue` draws values it refuses in every
 * way we could think of: wrong types, a missing required or an unknown property, just outside a
 * bound, a broken pattern, and hostile text (lone surrogates, NUL, huge strings).
 */
import fc from 'fast-check';

export type JsonSchema = Record<string, any>;

/** Resolves `#/components/...` references against the document. */
export type Resolver = (schema: JsonSchema) => JsonSchema;

export function resolverFor(document: { components?: Record<string, any> }): Resolver {
  return (schema) => {
    let current = schema;
    for (let hops = 0; typeof current?.['$ref'] === 'string' && hops < 10; hops += 1) {
      const path = (current['$ref'] as string).replace(/^#\//, '').split('/');
      let target: any = document;
      for (const part of path) target = target?.[part];
      current = target ?? {};
    }
    return current;
  };
}

const noRefs: Resolver = (schema) => schema;

/** Text that often breaks servers: lone surrogates, NUL, control characters, RTL marks, emoji, SQL and HTML. */
export const hostileText = fc.constantFrom(
  '\uD800',
  'a\uDFFFb',
  '\u0000',
  'nul\u0000inside',
  '\u001b[31m',
  '\u202Eevil',
  '😀'.repeat(3),
  "'; drop table invoices; --",
  '<script>alert(1)</script>',
  '../../etc/passwd',
  '%00',
  '%FF%FE',
  ' ',
  '',
  '\n',
  '９９', // full-width digits
  '1e309',
  '-0',
  'NaN',
);

const ULID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const ulid = fc.string({ unit: fc.constantFrom(...ULID_ALPHABET), minLength: 26, maxLength: 26 });

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema['type'])) return schema['type'] as string[];
  if (typeof schema['type'] === 'string') return [schema['type']];
  return [];
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema['format'] === 'date-time')
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
  const min = (schema['minLength'] as number | undefined) ?? 0;
  const max = Math.min((schema['maxLength'] as number | undefined) ?? min + 40, min + 60);
  if (typeof schema['pattern'] === 'string' && schema['pattern'] !== '^.*$') {
    if (schema['pattern'] === '^[0-9A-HJKMNP-TV-Z]{26}$') return ulid;
    return fc
      .stringMatching(new RegExp(schema['pattern'] as string))
      .filter((s) => s.length >= min && s.length <= ((schema['maxLength'] as number | undefined) ?? Infinity));
  }
  return fc.string({ minLength: min, maxLength: Math.max(min, max) });
}

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  let min = (schema['minimum'] as number | undefined) ?? (schema['exclusiveMinimum'] as number | undefined) ?? -1_000_000;
  let max = (schema['maximum'] as number | undefined) ?? (schema['exclusiveMaximum'] as number | undefined) ?? 1_000_000;
  if (integer) {
    if (schema['exclusiveMinimum'] !== undefined) min = Math.floor(min) + 1;
    if (schema['exclusiveMaximum'] !== undefined) max = Math.ceil(max) - 1;
    return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
  }
  const arbitrary = fc.double({
    min,
    max,
    noNaN: true,
    noDefaultInfinity: true,
    minExcluded: schema['exclusiveMinimum'] !== undefined,
    maxExcluded: schema['exclusiveMaximum'] !== undefined,
  });
  // Round-ish values too: partners send 1.5, not 1.4999999999999998.
  return fc.oneof(
    arbitrary,
    arbitrary
      .map((n) => Math.min(max, Math.max(min, Math.round(n * 100) / 100)))
      .filter((n) => (schema['exclusiveMinimum'] === undefined || n > min) && (schema['exclusiveMaximum'] === undefined || n < max)),
  );
}

/** Values the schema accepts. */
export function validValue(input: JsonSchema, resolve: Resolver = noRefs, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if ('const' in schema) return fc.constant(schema['const']);
  if (Array.isArray(schema['enum'])) return fc.constantFrom(...(schema['enum'] as unknown[]));
  const union = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (union) return fc.oneof(...union.map((s) => validValue(s, resolve, depth)));
  if (Array.isArray(schema['allOf'])) return validValue(Object.assign({}, ...(schema['allOf'] as JsonSchema[]).map(resolve)), resolve, depth);
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => validValue({ ...schema, type }, resolve, depth)));
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'string':
      return stringArbitrary(schema);
    case 'array': {
      const items = (schema['items'] as JsonSchema | undefined) ?? {};
      return fc.array(validValue(items, resolve, depth + 1), {
        minLength: schema['minItems'] ?? 0,
        maxLength: Math.min(schema['maxItems'] ?? 4, (schema['minItems'] ?? 0) + 4),
      });
    }
    case 'object':
      return objectArbitrary(schema, resolve, depth);
    default:
      // No type: anything JSON.
      return depth > 2 ? fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)) : fc.jsonValue({ maxDepth: 2 });
  }
}

function objectArbitrary(schema: JsonSchema, resolve: Resolver, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema['required'] ?? []) as string[]);
  const names = Object.keys(properties);
  const record = fc.record(Object.fromEntries(names.map((name) => [name, validValue(properties[name]!, resolve, depth + 1)])), {
    requiredKeys: names.filter((n) => required.has(n)),
  });
  if (names.length === 0 && schema['additionalProperties'] !== false) {
    return depth > 2 ? fc.constant({}) : fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
  }
  return record as fc.Arbitrary<Record<string, unknown>>;
}

/** A value of a JSON type other than those the schema allows. */
function wrongType(schema: JsonSchema): fc.Arbitrary<unknown> {
  const allowed = new Set(typesOf(schema));
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ['string', fc.oneof(fc.string(), hostileText)],
    ['number', fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(1e308, -1e308, 0.1, -1, 2 ** 53 + 1))],
    ['integer', fc.constantFrom(0, -1, 2 ** 31, 2 ** 63, Number.MAX_SAFE_INTEGER)],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })],
    ['object', fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })],
  ];
  // An integer is a number; a fraction is a wrong type for an integer schema.
  const pick = candidates.filter(([type]) => !allowed.has(type) && !(type === 'integer' && allowed.has('number')));
  return fc.oneof(...pick.map(([, arbitrary]) => arbitrary));
}

/** Values just outside the schema's bounds (when it has any), and hostile text for strings. */
function boundaryBreaker(schema: JsonSchema): fc.Arbitrary<unknown> | undefined {
  const out: fc.Arbitrary<unknown>[] = [];
  const types = typesOf(schema);
  if (types.includes('string') || schema['pattern']) {
    if (typeof schema['maxLength'] === 'number') out.push(fc.constant('x'.repeat((schema['maxLength'] as number) + 1)));
    if (typeof schema['minLength'] === 'number' && (schema['minLength'] as number) > 0) out.push(fc.constant('x'.repeat((schema['minLength'] as number) - 1)));
    if (schema['pattern'] || schema['format'])
      out.push(fc.oneof(hostileText, fc.string({ maxLength: 12 })).filter((s) => !(schema['pattern'] && new RegExp(schema['pattern'] as string).test(s))));
    out.push(hostileText, fc.constant('y'.repeat(100_000)));
  }
  if (types.includes('integer') || types.includes('number')) {
    if (typeof schema['minimum'] === 'number') out.push(fc.constant((schema['minimum'] as number) - (types.includes('integer') ? 1 : 0.001)));
    if (typeof schema['maximum'] === 'number') out.push(fc.constant((schema['maximum'] as number) + (types.includes('integer') ? 1 : 0.001)));
    if (typeof schema['exclusiveMinimum'] === 'number') out.push(fc.constant(schema['exclusiveMinimum']));
    if (typeof schema['exclusiveMaximum'] === 'number') out.push(fc.constant(schema['exclusiveMaximum']));
    if (types.includes('integer')) out.push(fc.constantFrom(1.5, 1e21, -(2 ** 63)));
  }
  if (Array.isArray(schema['enum'])) out.push(fc.oneof(fc.string({ maxLength: 10 }), hostileText).filter((s) => !(schema['enum'] as unknown[]).includes(s)));
  if (typeof schema['maxItems'] === 'number') out.push(fc.constant(Array.from({ length: (schema['maxItems'] as number) + 1 }, () => 1)));
  return out.length > 0 ? fc.oneof(...out) : undefined;
}

/**
 * Values the schema refuses. Objects are mutated one field at a time (the rest stays valid, so
 * the mutation is what the server sees first): drop a required property, add an unknown one
 * when none are allowed, or make one property invalid, recursively.
 */
export function invalidValue(input: JsonSchema, resolve: Resolver = noRefs, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  const union = (schema['anyOf'] ?? schema['oneOf']) as JsonSchema[] | undefined;
  if (union) {
    // Something no branch takes: a type none of them has, or an invalid value of the first branch's type.
    const allTypes = union.flatMap((s) => typesOf(resolve(s)));
    const options: fc.Arbitrary<unknown>[] = [wrongType({ type: allTypes })];
    const enumBranch = union.map(resolve).find((s) => Array.isArray(s['enum']));
    if (enumBranch) options.push(fc.string({ minLength: 1, maxLength: 8 }).filter((s) => !(enumBranch['enum'] as unknown[]).includes(s)));
    return fc.oneof(...options);
  }
  if ('const' in schema) return fc.oneof(fc.constant(`${String(schema['const'])}x`), fc.constant(null));
  if (Array.isArray(schema['enum']))
    return fc.oneof(
      fc.oneof(fc.string({ maxLength: 10 }), hostileText).filter((s) => !(schema['enum'] as unknown[]).includes(s)),
      fc.integer(),
      fc.constant(null),
    );
  const types = typesOf(schema);
  if (types.length === 0) return fc.constant(undefined);
  const options: fc.Arbitrary<unknown>[] = [wrongType(schema)];
  const boundary = boundaryBreaker(schema);
  if (boundary) options.push(boundary);
  if (types.includes('object') && depth < 3) {
    const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
    const required = ((schema['required'] ?? []) as string[]).filter((name) => name in properties);
    const valid = objectArbitrary(schema, resolve, depth);
    if (required.length > 0) {
      options.push(
        fc.tuple(valid, fc.constantFrom(...required)).map(([value, name]) => {
          const copy = { ...value };
          delete copy[name];
          return copy;
        }),
      );
    }
    if (schema['additionalProperties'] === false) {
      options.push(
        fc
          .tuple(valid, fc.oneof(fc.string({ minLength: 1, maxLength: 10 }), fc.constantFrom('__proto__', 'constructor', 'toString')))
          .filter(([, key]) => !(key in properties))
          .map(([value, key]) => {
            const copy: Record<string, unknown> = { ...value };
            Object.defineProperty(copy, key, { value: 1, enumerable: true, configurable: true, writable: true });
            return copy;
          }),
      );
    }
    const names = Object.keys(properties).filter((name) => !(depth > 0 && !required.includes(name)));
    for (const name of names) {
      const bad = invalidValue(properties[name]!, resolve, depth + 1);
      options.push(fc.tuple(valid, bad).map(([value, badValue]) => (badValue === undefined ? value : { ...value, [name]: badValue })));
    }
  }
  if (types.includes('array') && schema['items'] && depth < 3) {
    options.push(fc.array(invalidValue(schema['items'] as JsonSchema, resolve, depth + 1), { minLength: 1, maxLength: 2 }));
  }
  return fc.oneof(...options);
}

/** A JSON text nesting `depth` levels of objects or arrays. */
export function nestedJson(depth: number, kind: 'object' | 'array'): string {
  return kind === 'object' ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

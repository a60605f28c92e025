import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import Value from 'typebox/value';
import { coreErrors } from '../errors/core-errors.js';
import { MAX_JSON_DEPTH } from './body-reader.js';

/** A schema's compiled check (JIT code, built once per schema) and whether it declares any default. */
const compiled = new WeakMap<TSchema, { readonly validator: Validator; readonly hasDefaults: boolean }>();
function compiledOf(schema: TSchema): { readonly validator: Validator; readonly hasDefaults: boolean } {
  let entry = compiled.get(schema);
  if (!entry) {
    // Conservative: a property named "default" also counts, which only costs a no-op Value.Default.
    entry = { validator: Compile(schema), hasDefaults: JSON.stringify(schema).includes('"default"') };
    compiled.set(schema, entry);
  }
  return entry;
}

/**
 * Validates request input against a TypeBox schema. `coerce` converts query/path strings first.
 * Throws 400 `validation_error` whose message and `details.field` name the first bad field.
 */
export function validateInput<T>(schema: TSchema, value: unknown, where: 'body' | 'query' | 'params', coerce: boolean): T {
  const { validator, hasDefaults } = compiledOf(schema);
  let candidate = value;
  if (coerce) candidate = restoreNonIntegers(schema, value, Value.Convert(schema, Value.Clone(value)));
  if (hasDefaults) candidate = Value.Default(schema, candidate);
  // The compiled check decides; the interpreted walk only runs to name what is wrong.
  const valid = validator.Check(candidate);
  const errors = valid ? [] : [...Value.Errors(schema, candidate)];
  // Should the two ever disagree, the compiled check's refusal stands.
  if (!valid && errors.length === 0) throw coreErrors.validation_error({ message: `${where} failed validation`, details: { field: where } });
  if (errors.length === 0) {
    const bad = pathOfUnstorable(candidate, [], where);
    if (bad) {
      const name = bad.length === 0 ? where : `${where === 'body' ? '' : `${where}.`}${bad.join('.')}`;
      throw coreErrors.validation_error({ message: `${name} must not contain the NUL character or an unpaired surrogate`, details: { field: name } });
    }
    return candidate as T;
  }
  const issues = errors.slice(0, 10).map((error) => {
    const params = error.params as Record<string, unknown>;
    let field = error.instancePath.split('/').filter(Boolean).join('.');
    if (error.keyword === 'required' && Array.isArray(params['requiredProperties'])) {
      field = [field, String(params['requiredProperties'][0])].filter(Boolean).join('.');
      return { field, message: 'is required' };
    }
    if (error.keyword === 'additionalProperties' && Array.isArray(params['additionalProperties'])) {
      field = [field, String(params['additionalProperties'][0])].filter(Boolean).join('.');
      return { field, message: 'is not a known field' };
    }
    if (error.keyword === 'boolean' && error.schemaPath.endsWith('additionalProperties')) {
      return { field, message: 'is not a known field' };
    }
    return { field, message: error.message };
  });
  // Prefer a concrete leaf error over the umbrella "must not have additional properties" entry.
  const first = issues.find((i) => i.field !== '') ?? issues[0]!;
  const name = first.field === '' ? where : `${where === 'body' ? '' : `${where}.`}${first.field}`;
  throw coreErrors.validation_error({
    message: `${name} ${first.message}`,
    details: { field: name, issues: issues.map((i) => ({ ...i, field: i.field === '' ? where : i.field })) },
  });
}

/**
 * TypeBox's conversion truncates "1.5" to an integer; a query or path value that is not written as
 * a whole number must fail validation instead, so the raw string is put back.
 */
function restoreNonIntegers(schema: TSchema, raw: unknown, converted: unknown): unknown {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  if (!properties || typeof raw !== 'object' || raw === null || typeof converted !== 'object' || converted === null) return converted;
  const result = { ...(converted as Record<string, unknown>) };
  for (const [name, property] of Object.entries(properties)) {
    const original = (raw as Record<string, unknown>)[name];
    if (property.type === 'integer' && typeof original === 'string' && !/^[+-]?\d+$/.test(original.trim())) result[name] = original;
  }
  return result;
}

/**
 * PostgreSQL text and jsonb cannot hold U+0000, so a string carrying it could never be stored or
 * searched; refusing it here keeps it from reaching the database as a 500. Returns the path of
 * the first such string (keys included), or undefined.
 */
/**
 * The path of the first string (value or key) PostgreSQL would refuse or alter: one holding NUL
 * (text refuses it) or an unpaired UTF-16 surrogate (jsonb refuses it; text stores U+FFFD, so two
 * different ids could collide).
 */
function pathOfUnstorable(value: unknown, path: string[], where: string): string[] | undefined {
  // The walk is recursive: input that did not come through the HTTP body reader (MCP over STDIO)
  // has not had its nesting checked yet, and must not overflow the stack here.
  if (path.length > MAX_JSON_DEPTH)
    throw coreErrors.validation_error({ message: `The ${where} nests deeper than ${MAX_JSON_DEPTH} levels.`, details: { field: where } });
  if (typeof value === 'string') return unstorable(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = pathOfUnstorable(item, [...path, String(i)], where);
      if (found) return found;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (unstorable(key)) return [...path, key.replace(/\u0000/g, '\\0').toWellFormed()];
      const found = pathOfUnstorable(item, [...path, key], where);
      if (found) return found;
    }
  }
  return undefined;
}

function unstorable(text: string): boolean {
  return text.includes('\u0000') || !text.isWellFormed();
}

import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { ConfigError } from './config-error.js';

/**
 * Applies defaults, coerces environment strings, and validates `value` against `schema`.
 * Throws ConfigError naming the first offending key as a dotted path under `prefix`.
 */
export function validateConfig<T>(schema: TSchema, value: unknown, prefix: string): T {
  const withDefaults = Value.Default(schema, Value.Clone(value ?? {}));
  const converted = Value.Convert(schema, withDefaults);
  const errors = [...Value.Errors(schema, converted)];
  if (errors.length > 0) {
    const messages = errors.map((error) => {
      const params = error.params as Record<string, unknown>;
      let path = error.instancePath;
      if (error.keyword === 'additionalProperties' && Array.isArray(params['additionalProperties'])) {
        return `unknown key ${join(prefix, path, String(params['additionalProperties'][0]))}`;
      }
      if (error.keyword === 'required' && Array.isArray(params['requiredProperties'])) {
        return `missing key ${join(prefix, path, String(params['requiredProperties'][0]))}`;
      }
      if (error.keyword === 'boolean' && error.schemaPath.endsWith('additionalProperties')) {
        return `unknown key ${join(prefix, path)}`;
      }
      return `invalid value for ${join(prefix, path)}: ${error.message}`;
    });
    throw new ConfigError(`Invalid configuration: ${[...new Set(messages)].join('; ')}`);
  }
  return converted as T;
}

function join(prefix: string, pointer: string, last?: string): string {
  const parts = pointer
    .split('/')
    .filter(Boolean)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (last !== undefined) parts.push(last);
  return [prefix, ...parts].filter(Boolean).join('.');
}

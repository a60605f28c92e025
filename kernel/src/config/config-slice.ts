import Type, { type TProperties } from 'typebox';

/**
 * The schema of a plugin's config slice (`plugins.<id>`): a closed object (an unknown key is an
 * error) whose fields take their defaults, an absent slice being `{}` with every default applied.
 */
export function configSlice<T extends TProperties>(properties: T) {
  return Type.Object(properties, { additionalProperties: false, default: {} });
}

import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>;
  components?: Record<string, unknown>;
};

const validators = new WeakMap<object, { ajv: Ajv2020; cache: Map<string, ValidateFunction> }>();

/**
 * Problems of one answer against an OpenAPI 3.1 document, found with Ajv (independent of the
 * gateway's TypeBox schemas): the operation must exist, the status must be documented and the
 * JSON body must match that status's schema. Empty when it matches.
 */
export function documentMismatches(document: Document, method: string, pathname: string, status: number, body: unknown): string[] {
  const template = Object.keys(document.paths).find((path) =>
    new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(pathname),
  );
  if (!template) return [`${method} ${pathname}: no such path in the document`];
  const operation = document.paths[template]![method.toLowerCase()];
  if (!operation) return [`${method} ${template}: no such operation in the document`];
  const response = operation.responses[String(status)];
  if (!response) return [`${method} ${template}: status ${status} is not documented`];
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return body === undefined ? [] : [`${method} ${template} ${status}: a body where none is documented`];
  let state = validators.get(document);
  if (!state) {
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    ajv.addSchema({ $id: 'doc', components: document.components ?? {} });
    state = { ajv, cache: new Map() };
    validators.set(document, state);
  }
  const key = `${method} ${template} ${status}`;
  let validate = state.cache.get(key);
  if (!validate) {
    validate = state.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/')));
    state.cache.set(key, validate);
  }
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${key}: ${e.instancePath || '(body)'} ${e.message}`);
}

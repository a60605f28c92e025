import Value from 'typebox/value';
import type { TSchema } from 'typebox';
import { ErrorBodySchema, errorSpecs, routeErrorCodes, type AnyErrorCatalogue } from '../http/openapi.js';
import type { HttpMethod, RouteDefinition } from '../http/route.js';
import type { AnyPlugin } from '../plugin.js';

/**
 * Where the routes (and the error catalogues that give their error codes a status) come from: a
 * started `Kernel` fits, as does `{ routes, errorCatalogues }` or a bare route list (kernel
 * catalogue only).
 */
export type ResponseCheckSource =
  | readonly RouteDefinition[]
  | {
      readonly routes: readonly RouteDefinition[];
      readonly plugins?: readonly { readonly plugin: AnyPlugin }[];
      readonly errorCatalogues?: readonly AnyErrorCatalogue[];
    };

/**
 * Checks a response against what the route documents: a status declared in the route's
 * `responses` must match that TypeBox schema; an error status must be the error envelope with one
 * of the codes the OpenAPI document lists for that status; any other status is undocumented.
 * `path` is the route's template (`/api/v1/invoices/:id`) or a concrete path (`/api/v1/invoices/01J...`,
 * query ignored). Returns the problems, empty when the response matches.
 */
export function responseMismatches(source: ResponseCheckSource, method: HttpMethod, path: string, status: number, body: unknown): string[] {
  const { routes, catalogues } = unpack(source);
  const route = findRoute(routes, method, path);
  if (!route) return [`no route ${method} ${path}`];
  const name = `${route.method} ${route.path}`;
  const declared = route.responses?.[status];
  const allErrors = routeErrorCodes(route, errorSpecs(catalogues));
  const errors = allErrors.filter((e) => e.status === status);

  const problems: string[] = [];
  if (declared) {
    const declaredProblems = schemaProblems(declared, body);
    if (declaredProblems.length === 0) return [];
    problems.push(...declaredProblems.map((p) => `${name} ${status}: ${p}`));
  }
  if (errors.length > 0) {
    const envelopeProblems = schemaProblems(ErrorBodySchema, body);
    const code = (body as { error_code?: unknown } | null)?.error_code;
    if (envelopeProblems.length === 0 && errors.some((e) => e.code === code)) return [];
    problems.push(
      ...envelopeProblems.map((p) => `${name} ${status} error body: ${p}`),
      ...(envelopeProblems.length === 0 ? [`${name} ${status}: error_code ${JSON.stringify(code)} is not one of ${errors.map((e) => e.code).join(', ')}`] : []),
    );
  }
  if (!declared && errors.length === 0) {
    const documented = [...Object.keys(route.responses ?? {}), ...new Set(allErrors.map((e) => String(e.status)))];
    problems.push(`${name}: status ${status} is not documented (documented: ${documented.join(', ') || 'none'})`);
  }
  return problems;
}

/**
 * Throws when {@link responseMismatches} finds a problem; the message lists them all. For tests:
 * `expectResponseMatchesRoute(gw.kernel, 'GET', '/api/v1/wallets', res.status, res.body)`.
 */
export function expectResponseMatchesRoute(source: ResponseCheckSource, method: HttpMethod, path: string, status: number, body: unknown): void {
  const problems = responseMismatches(source, method, path, status, body);
  if (problems.length > 0) throw new Error(`response does not match the route's documentation:\n- ${problems.join('\n- ')}`);
}

function unpack(source: ResponseCheckSource): { routes: readonly RouteDefinition[]; catalogues: readonly AnyErrorCatalogue[] } {
  if (Array.isArray(source)) return { routes: source as readonly RouteDefinition[], catalogues: [] };
  const object = source as Exclude<ResponseCheckSource, readonly RouteDefinition[]>;
  return {
    routes: object.routes,
    catalogues: [...(object.plugins ?? []).flatMap(({ plugin }) => plugin.errors ?? []), ...(object.errorCatalogues ?? [])],
  };
}

function findRoute(routes: readonly RouteDefinition[], method: HttpMethod, path: string): RouteDefinition | undefined {
  const pathname = path.split('?')[0]!;
  const candidates = routes.filter((r) => r.method === method);
  return (
    candidates.find((r) => r.path === pathname) ??
    candidates.find((r) => {
      const pattern = r.path
        .split(/(:[A-Za-z_$][A-Za-z0-9_$]*)/)
        .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('');
      return new RegExp(`^${pattern}/?$`).test(pathname);
    })
  );
}

function schemaProblems(schema: TSchema, body: unknown): string[] {
  return [...Value.Errors(schema, body)].slice(0, 20).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
}

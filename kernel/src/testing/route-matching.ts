import Router from '@koa/router';
import { createIndexedRouter } from '../http/route-index.js';

/** The layers a request matched, by their position in the routes given: by path, by path and method, and whether a route (not only middleware) matched. */
export interface RouteMatchOutcome {
  readonly path: readonly number[];
  readonly pathAndMethod: readonly number[];
  readonly route: boolean;
}

type MatchResult = ReturnType<Router['match']>;

/** One router of the routes given, matched two ways (see {@link routeMatchers}). */
export interface RouteMatchers {
  /** `router.match` of the gateway's router (`createIndexedRouter`), through the route index. */
  indexed(path: string, method: string): MatchResult;
  /** koa-router's own `match`, which tests every layer in turn. */
  tested(path: string, method: string): MatchResult;
  /** A match's layers by position, to compare two matches. */
  outcome(result: MatchResult): RouteMatchOutcome;
}

/**
 * For tests and benchmarks of the kernel's route index (kernel/src/http/route-index.ts): the
 * gateway's router of `routes` (method `USE` adds middleware as `router.use(path, ...)` does),
 * matched through the index and through koa-router's test of every layer.
 */
export function routeMatchers(routes: readonly { readonly method: string; readonly path: string }[]): RouteMatchers {
  const router = createIndexedRouter();
  const handler = async () => undefined;
  for (const { method, path } of routes) {
    if (method === 'USE') router.use(path, handler);
    else router.register(path, [method], handler);
  }
  const testEveryLayer = Router.prototype.match;
  return {
    indexed: (path, method) => router.match(path, method),
    tested: (path, method) => testEveryLayer.call(router, path, method),
    outcome: (result) => ({
      path: result.path.map((layer) => router.stack.indexOf(layer)),
      pathAndMethod: result.pathAndMethod.map((layer) => router.stack.indexOf(layer)),
      route: result.route,
    }),
  };
}

/** A request matched both ways, as positions: `indexed` must equal `tested`. */
export function matchBothWays(
  matchers: RouteMatchers,
  path: string,
  method: string,
): { readonly indexed: RouteMatchOutcome; readonly tested: RouteMatchOutcome } {
  return { indexed: matchers.outcome(matchers.indexed(path, method)), tested: matchers.outcome(matchers.tested(path, method)) };
}

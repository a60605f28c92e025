import Router from '@koa/router';
import type { Layer, MatchResult } from '@koa/router';

/**
 * The gateway's router: a koa-router `Router` whose `match` tests only the routes a request path
 * can match (see {@link indexRouteMatching}).
 */
export function createIndexedRouter(): Router {
  const router = new Router();
  indexRouteMatching(router);
  return router;
}

/**
 * Makes `router.match` test only the routes a request path can match, instead of every route in
 * turn: koa-router tests each layer's regular expression (and calls its `debug` for each), which
 * over the gateway's 263 routes was 7.9 % of the gateway's CPU samples of signed creates
 * (docs/performance.md, "The router tested every route").
 *
 * Each layer is filed under the leading segments of its path that are plain text (up to the first
 * parameter, wildcard, group or escape), lowercased; a request is tested against the layers filed
 * under the leading segments of its own path, which a layer must share to match at all, in the
 * order they were registered. The result is the one `Router.prototype.match` gives, layer for layer
 * (e2e/route-index.test.ts compares both over every route of the gateway, and
 * route-index.test.ts over hand-made and random paths): the index only skips layers whose regular
 * expression cannot match. Layers without such a prefix (a regular expression, a path starting
 * with a parameter) are tested for every request, as before. A request reads at most as many of
 * its segments as the longest prefix has, however long its path.
 *
 * The index follows layers added later (it is rebuilt when the stack grows); a path changed in
 * place afterwards (`router.prefix` after mounting) is not seen, and the gateway does not do that.
 */
export function indexRouteMatching(router: Router): void {
  let indexedLayers = -1;
  let always: number[] = [];
  let byPrefix = new Map<string, number[]>();
  let depth = 0;
  const rebuild = () => {
    always = [];
    byPrefix = new Map();
    depth = 0;
    router.stack.forEach((layer, position) => {
      const prefix = literalPrefix(layer);
      if (prefix === undefined) {
        always.push(position);
        return;
      }
      const key = `/${prefix.join('/')}`;
      const bucket = byPrefix.get(key);
      if (bucket) bucket.push(position);
      else byPrefix.set(key, [position]);
      depth = Math.max(depth, prefix.length);
    });
    indexedLayers = router.stack.length;
  };
  router.match = (path: string, method: string): MatchResult => {
    if (indexedLayers !== router.stack.length) rebuild();
    const result: MatchResult = { path: [], pathAndMethod: [], route: false };
    const normalizedMethod = method.toUpperCase();
    for (const position of candidates(path, depth, always, byPrefix)) {
      const layer = router.stack[position]!;
      if (!layer.match(path)) continue;
      result.path.push(layer);
      if (layer.methods.length === 0 || layer.methods.includes(normalizedMethod)) {
        result.pathAndMethod.push(layer);
        if (layer.methods.length > 0) result.route = true;
      }
    }
    return result;
  };
}

// Characters that make a path segment more than plain text in path-to-regexp's syntax.
const SPECIAL = /[:*{}()[\]+?!\\]/;

/**
 * The lowercased plain-text leading segments of a layer's path (`api`, `v1`, `invoices` for
 * `/api/v1/invoices/:id`), or `undefined` when a request cannot be narrowed by them.
 */
function literalPrefix(layer: Layer): string[] | undefined {
  if (typeof layer.path !== 'string' || layer.opts.pathAsRegExp === true || !layer.path.startsWith('/')) return undefined;
  // Non-ASCII text could match in other ways (case folding); such layers are always tested.
  if (!/^[\x20-\x7e]*$/.test(layer.path)) return undefined;
  const literal: string[] = [];
  // An empty segment ends the prefix: a trailing slash is optional in a match (`strict: false`).
  for (const segment of layer.path.slice(1).split('/')) {
    if (segment === '' || SPECIAL.test(segment)) break;
    literal.push(segment.toLowerCase());
  }
  return literal.length === 0 ? undefined : literal;
}

/**
 * The keys under which layers matching `path` can be filed: its first one to `depth` segments,
 * lowercased (`/api`, `/api/v1`, ...). Never more than `depth` keys, however long the path.
 */
export function leadingKeys(path: string, depth: number): string[] {
  const keys: string[] = [];
  if (!path.startsWith('/')) return keys;
  let key = '';
  let from = 1;
  while (keys.length < depth && from <= path.length) {
    const end = path.indexOf('/', from);
    key += `/${path.slice(from, end === -1 ? undefined : end).toLowerCase()}`;
    keys.push(key);
    if (end === -1) break;
    from = end + 1;
  }
  return keys;
}

/** Positions of the layers to test for `path`, in registration order. */
function candidates(path: string, depth: number, always: readonly number[], byPrefix: ReadonlyMap<string, readonly number[]>): number[] {
  const found: number[] = [...always];
  let sorted = true;
  for (const key of leadingKeys(path, depth)) {
    const bucket = byPrefix.get(key);
    if (!bucket) continue;
    if (found.length > 0 && bucket[0]! < found.at(-1)!) sorted = false;
    found.push(...bucket);
  }
  return sorted ? found : found.sort((a, b) => a - b);
}

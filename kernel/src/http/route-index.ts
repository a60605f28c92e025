import type Router from '@koa/router';
import type { Layer, MatchResult } from '@koa/router';

/**
 * Makes `router.match` test only the routes a request path can match, instead of every route in
 * turn: koa-router tests each layer's regular expression (and calls its `debug` for each), which
 * over the gateway's 263 routes was 7.9 % of the gateway's CPU samples of signed creates
 * (docs/performance.md, "The router tested every route").
 *
 * Each layer is filed under the leading segments of its path that are plain text (up to the first
 * parameter, wildcard or group), lowercased; a request is tested against the layers filed under
 * the leading segments of its own path, which a layer must share to match at all, in the order
 * they were registered. The result is the one `Router.prototype.match` gives, layer for layer
 * (e2e/route-index.test.ts compares both over every route of the gateway, and
 * route-index.test.ts over hand-made and random paths): the index only
 * skips layers whose regular expression cannot match. Layers without such a prefix (a regular
 * expression, a path starting with a parameter) are tested for every request, as before.
 *
 * The index follows layers added later (it is rebuilt when the stack grows); a path changed in
 * place afterwards (`router.prefix` after mounting) is not seen, and the gateway does not do that.
 */
export function indexRouteMatching(router: Router): void {
  let indexedLayers = -1;
  let always: number[] = [];
  let byPrefix = new Map<string, number[]>();
  const rebuild = () => {
    always = [];
    byPrefix = new Map();
    router.stack.forEach((layer, position) => {
      const prefix = literalPrefix(layer);
      if (prefix === undefined) always.push(position);
      else {
        const bucket = byPrefix.get(prefix);
        if (bucket) bucket.push(position);
        else byPrefix.set(prefix, [position]);
      }
    });
    indexedLayers = router.stack.length;
  };
  router.match = (path: string, method: string): MatchResult => {
    if (indexedLayers !== router.stack.length) rebuild();
    const result: MatchResult = { path: [], pathAndMethod: [], route: false };
    const normalizedMethod = method.toUpperCase();
    for (const position of candidates(path, always, byPrefix)) {
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
 * The lowercased plain-text leading segments of a layer's path (`/api/v1/invoices` for
 * `/api/v1/invoices/:id`), or `undefined` when a request cannot be narrowed by them.
 */
function literalPrefix(layer: Layer): string | undefined {
  if (typeof layer.path !== 'string' || layer.opts.pathAsRegExp === true || !layer.path.startsWith('/')) return undefined;
  // Non-ASCII text could match in other ways (case folding); such layers are always tested.
  if (!/^[\x20-\x7e]*$/.test(layer.path)) return undefined;
  const segments = layer.path.slice(1).split('/');
  // A trailing slash is optional in a match (`strict: false`).
  while (segments.length > 0 && segments.at(-1) === '') segments.pop();
  const literal: string[] = [];
  for (const segment of segments) {
    if (segment === '' || SPECIAL.test(segment)) break;
    literal.push(segment.toLowerCase());
  }
  return literal.length === 0 ? undefined : `/${literal.join('/')}`;
}

/** Positions of the layers to test for `path`, in registration order. */
function candidates(path: string, always: readonly number[], byPrefix: ReadonlyMap<string, readonly number[]>): number[] {
  const found: number[] = [...always];
  if (!path.startsWith('/')) return found;
  let sorted = true;
  let key = '';
  let from = 1;
  while (from <= path.length) {
    const end = path.indexOf('/', from);
    key += `/${path.slice(from, end === -1 ? undefined : end).toLowerCase()}`;
    const bucket = byPrefix.get(key);
    if (bucket) {
      if (found.length > 0 && bucket[0]! < found.at(-1)!) sorted = false;
      found.push(...bucket);
    }
    if (end === -1) break;
    from = end + 1;
  }
  return sorted ? found : found.sort((a, b) => a - b);
}

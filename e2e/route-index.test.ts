/**
 * The gateway's router tests only the routes a path can match (kernel/src/http/route-index.ts).
 * Over every route the composition serves, a request finds the same layers, in the same order, as
 * koa-router's own test of every layer: each route's path with its parameters filled in, and
 * variations of it (case, a trailing slash, one segment more or fewer, a parameter left empty).
 */
import test from 'ava';
import { chains, plugins } from '@gw/app-gateway';
import { matchBothWays, routeMatchers, startTestKernel, type TestKernel } from '@gw/kernel/testing';

let gw: TestKernel;
test.before(async () => {
  gw = await startTestKernel({ plugins, chains, role: 'gateway' });
});
test.after.always(async () => {
  await gw?.close();
});

test("every route of the composition matches through the index as through koa-router's test of every layer", (t) => {
  const matchers = routeMatchers(gw.kernel.routes);
  const compare = (path: string, method: string) => {
    const { indexed, tested } = matchBothWays(matchers, path, method);
    t.deepEqual(indexed, tested, `${method} ${path}`);
    return indexed.route;
  };
  let routed = 0;
  t.true(gw.kernel.routes.length > 200, `the composition serves ${gw.kernel.routes.length} routes`);
  for (const route of gw.kernel.routes) {
    const filled = route.path.replace(/\{([^}]*)\}/g, '$1').replace(/[:*]([A-Za-z0-9_]+)/g, 'x1');
    const segments = filled.split('/');
    const variations = [
      filled,
      `${filled}/`,
      filled.toUpperCase(),
      `${filled}/more`,
      segments.slice(0, -1).join('/') || '/',
      route.path.replace(/[:*]([A-Za-z0-9_]+)/g, ''),
    ];
    for (const path of variations) for (const method of [route.method, 'GET', 'DELETE']) if (compare(path, method)) routed += 1;
  }
  t.true(routed >= gw.kernel.routes.length, `each route is reached by its own path (${routed} matches)`);
});

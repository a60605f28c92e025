import test from 'ava';
import { matchBothWays, routeMatchers } from '../testing/route-matching.js';
import { createIndexedRouter, leadingKeys } from './route-index.js';

const noop = async () => undefined;

const ROUTES = [
  ['GET', '/healthz'],
  ['POST', '/api/v1/invoices'],
  ['GET', '/api/v1/invoices'],
  ['GET', '/api/v1/invoices/export'],
  ['GET', '/api/v1/invoices/:id'],
  ['POST', '/api/v1/invoices/:id/refunds'],
  ['GET', '/api/v1/:resource/count'],
  ['USE', '/api/v1/invoices/:id'],
  ['USE', '/api/v1/sandbox'],
  ['GET', '/:lang/docs'],
  ['GET', '/files/*rest'],
  ['GET', '/btcpay/api/v1/stores/:storeId/invoices{/:invoiceId}'],
  ['GET', '/Checkout/Mixed.Case'],
  ['GET', '/api/v1/invoices.:format'],
  ['GET', '/api/v1/sandbox/'],
  ['GET', '/opt{/beta}/x'],
  ['GET', '/a/b\\:c'],
  ['GET', '/esc/\\x'],
  ['GET', '/'],
].map(([method, path]) => ({ method: method!, path: path! }));

/** Hand-made requests: each route's own path, with its case, trailing slash and neighbours varied. */
const PATHS = [
  '/',
  '/healthz',
  '/HEALTHZ/',
  '/api/v1/invoices',
  '/api/v1/invoices/',
  '/API/V1/Invoices',
  '/api/v1/invoices/export',
  '/api/v1/invoices/inv_1',
  '/api/v1/invoices/inv_1/refunds',
  '/api/v1/invoices/count',
  '/api/v1/payouts/count',
  '/en/docs',
  '/files/a/b/c',
  '/btcpay/api/v1/stores/s1/invoices',
  '/btcpay/api/v1/stores/s1/invoices/i1',
  '/checkout/mixed.case',
  '/api/v1/invoices.json',
  '/api/v1/sandbox',
  '/api/v1/sandbox/',
  '/api/v1/sandbox/clock',
  '/opt/x',
  '/opt/beta/x',
  '/OPT/Beta/x/',
  '/a/b:c',
  '/a/b',
  '/esc/x',
  '/api/v1/%69nvoices',
  '/api/v1/invoice\u212a',
  'no-slash',
  '',
];

test('a request is matched by the same layers, in the same order, as by testing every layer', (t) => {
  const matchers = routeMatchers(ROUTES);
  for (const path of PATHS) {
    for (const method of ['GET', 'POST', 'HEAD', 'DELETE']) {
      const { indexed, tested } = matchBothWays(matchers, path, method);
      t.deepEqual(indexed, tested, `${method} ${path}`);
    }
  }
  // The create's request is routed to its own layer alone.
  t.deepEqual(matchBothWays(matchers, '/api/v1/invoices', 'POST').indexed.pathAndMethod, [1]);
});

test("random paths of the hand-made paths' segments match as by testing every layer", (t) => {
  const matchers = routeMatchers(ROUTES);
  // Random paths of the hand-made paths' segments, cased as they are there.
  const pieces = [...new Set(PATHS.flatMap((path) => path.split('/')))];
  let seed = 42;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
  let routed = 0;
  for (let n = 0; n < 5_000; n += 1) {
    const length = 1 + (next() % 6);
    const path = `/${Array.from({ length }, () => pieces[next() % pieces.length]).join('/')}`;
    const { indexed, tested } = matchBothWays(matchers, path, 'GET');
    t.deepEqual(indexed, tested, path);
    if (indexed.route) routed += 1;
  }
  t.true(routed > 100, `the random paths reach routes (${routed})`);
});

test('layers registered after the first match are indexed too', (t) => {
  const router = createIndexedRouter();
  router.register('/a', ['GET'], noop);
  t.false(router.match('/b/1', 'GET').route);
  router.register('/b/:id', ['GET'], noop);
  t.true(router.match('/b/1', 'GET').route);
});

test('a request reads no more of its path than the longest indexed prefix has segments', (t) => {
  t.deepEqual(leadingKeys('/API/v1/Invoices/inv_1', 3), ['/api', '/api/v1', '/api/v1/invoices']);
  t.deepEqual(leadingKeys('/api', 3), ['/api']);
  t.deepEqual(leadingKeys('no-slash', 3), []);
  // A 16 kB path of 8,000 segments, as an unauthenticated client may send: still three keys.
  t.is(leadingKeys('/a'.repeat(8_000), 3).length, 3);
  const matchers = routeMatchers(ROUTES);
  const { indexed, tested } = matchBothWays(matchers, '/a'.repeat(8_000), 'GET');
  t.deepEqual(indexed, tested);
});

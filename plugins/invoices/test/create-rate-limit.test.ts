import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { roomInRateWindow, signedFetch, type TestKernel } from '@gw/kernel/testing';
import { projectWithPools, startInvoicesKernel } from './helpers.js';

let gw: TestKernel;
test.before(async () => {
  gw = await startInvoicesKernel({ 'database.poolMax': 20, 'plugins.invoices.createRateLimitPerMinute': 3 });
});
test.after.always(async () => {
  await gw?.close();
});

test('creates over the per-project limit are 429 with Retry-After, in the same batches as creates within it, and write nothing', async (t) => {
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('limits', CLI_ACTOR)).id;
  const [a, b] = [await projectWithPools(gw, operatorId, ['ada']), await projectWithPools(gw, operatorId, ['ada'])];
  const create = (p: typeof a, n: number) =>
    signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body: { external_id: `limit-${n}`, amount_crypto: '1', coin: 'ada' } });
  await roomInRateWindow(20);
  // One project over its limit, another within it, concurrently: the batches mix both.
  const [overA, withinB] = await Promise.all([
    Promise.all(Array.from({ length: 7 }, (_, n) => create(a, n))),
    Promise.all(Array.from({ length: 2 }, (_, n) => create(b, n))),
  ]);
  t.deepEqual(overA.map((r) => r.status).sort(), [201, 201, 201, 429, 429, 429, 429]);
  for (const r of overA.filter((r) => r.status === 429)) {
    t.is(r.body.error_code, 'rate_limit_exceeded');
    t.truthy(r.headers.get('retry-after'));
  }
  t.deepEqual(
    withinB.map((r) => r.status),
    [201, 201],
  );
  // A replay over the limit is refused too (the limit comes first).
  const created = overA.find((r) => r.status === 201)!;
  const replay = await signedFetch(gw.url, '/api/v1/invoices', {
    ...a,
    method: 'POST',
    body: { external_id: created.body.external_id, amount_crypto: '1', coin: 'ada' },
  });
  t.is(replay.status, 429);

  const { db } = gw.kernel.cradle;
  const count = async (table: string, where: Record<string, unknown>) => Number((await db(table).where(where).count('* as n'))[0]!.n);
  t.is(await count('invoices_invoices', { project_id: a.projectId }), 3);
  t.is(await count('kernel_audit_log', { project_id: a.projectId, action: 'invoice.create' }), 3);
  t.is(
    Number((await db('address_pool_addresses').where({ project_id: a.projectId }).sum('active_allocations as n'))[0]!.n),
    3,
    'no address held for a refused create',
  );
  t.is(await count('invoices_invoices', { project_id: b.projectId }), 2);
});

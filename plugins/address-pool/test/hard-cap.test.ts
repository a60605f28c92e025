import test from 'ava';
import { ethChain } from '@gw/chain-eth';
import { isAppError } from '@gw/kernel';
import { type TestKernel } from '@gw/kernel/testing';
import { projectWithWallets, startPoolKernel } from './helpers.js';

let gw: TestKernel, operatorId: string;
test.before(async () => {
  ({ gw, operatorId } = await startPoolKernel({
    chains: [ethChain],
    role: 'gateway',
    config: { 'plugins.address-pool.hardCap': 5, 'plugins.address-pool.overlay': false },
    operator: 'pool-cap',
  }));
});
test.after.always(async () => {
  await gw?.close();
});

test('at the hard cap without overlay, allocation is 503 pool_exhausted with Retry-After', async (t) => {
  const { addressPoolReplenisher, addressPoolService, addressPoolStatus, db } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  const [report] = await addressPoolReplenisher.replenish({ projectId, chain: 'eth' });
  t.is(report!.derived, 5, 'the target of 20 is capped at 5');
  t.is((await addressPoolReplenisher.replenish({ projectId, chain: 'eth' }))[0]!.derived, 0);
  const allocate = () => db.transaction((trx) => addressPoolService.allocate(trx, { projectId, chain: 'eth', invoiceRef: 'x' }));
  const got = await Promise.all(Array.from({ length: 5 }, allocate));
  t.is(new Set(got.map((g) => g.address)).size, 5);
  const error = await t.throwsAsync(allocate());
  t.true(isAppError(error));
  t.like(error, { code: 'pool_exhausted', status: 503, retryAfter: 30 });
  const [status] = await addressPoolStatus.status({ projectId });
  t.like(status, { hard_cap: 5, total: 5, allocated: 5, available: 0 });
  t.is(
    await db('address_pool_addresses')
      .where({ project_id: projectId })
      .sum('active_allocations as n')
      .first()
      .then((r) => Number(r!.n)),
    5,
    'the failed allocation left nothing behind',
  );
});

import test from 'ava';
import { ethChain } from '@gw/chain-eth';
import { type TestKernel } from '@gw/kernel/testing';
import { REPLENISH_JOB } from '@gw/plugin-address-pool';
import { projectWithWallets, waitFor, startPoolKernel } from './helpers.js';

// Worker role: pg-boss runs the replenish job.
let gw: TestKernel, operatorId: string;
test.before(async () => {
  ({ gw, operatorId } = await startPoolKernel({ chains: [ethChain], role: 'all', config: { 'plugins.address-pool.targetFree': 8 }, operator: 'pool-jobs' }));
});
test.after.always(async () => {
  await gw?.close();
});

const available = async (projectId: string): Promise<number> =>
  Number((await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId, state: 'available' }).count<{ n: string }[]>({ n: '*' }))[0]!.n);

test("verifying a wallet fills its pool at once; the buffer follows the last minute's allocations (ten times)", async (t) => {
  const { db, addressPoolService } = gw.kernel.cradle;
  // No allocation and no scheduled run: the verification's notice asks the replenish job.
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  await waitFor(async () => (await available(projectId)) === 8, 10_000, 'the pool filled after verification');
  const allocate = () => db.transaction((trx) => addressPoolService.allocate(trx, { projectId, chain: 'eth', invoiceRef: 'r' }));

  // Allocating below the low watermark (half the target) asks for more: five allocations in the
  // last minute make the buffer 50.
  for (let i = 0; i < 5; i++) t.false((await allocate()).isOverlay);
  await waitFor(async () => (await available(projectId)) === 50, 10_000, 'the buffer grown to ten times the recent allocations');
  t.is(Number((await db('address_pool_addresses').where({ project_id: projectId }).count<{ n: string }[]>({ n: '*' }))[0]!.n), 55);
});

test('a replenish job without data fills every verified pool and recycles ended cooldowns', async (t) => {
  const { db, jobs } = gw.kernel.cradle;
  const a = await projectWithWallets(gw, operatorId, ['eth']);
  const b = await projectWithWallets(gw, operatorId, ['eth']);
  await jobs.send(REPLENISH_JOB, {});
  await waitFor(async () => (await available(a)) === 8 && (await available(b)) === 8);
  await db('address_pool_addresses')
    .where({ project_id: a })
    .update({ state: 'cooldown', cooldown_until: new Date(Date.now() - 1000) });
  await jobs.send(REPLENISH_JOB, {});
  await waitFor(async () => (await db('address_pool_addresses').where({ project_id: a, state: 'cooldown' }).first()) === undefined);
  t.is(await available(a), 8, 'recycled rows count towards the target: nothing new derived');
});

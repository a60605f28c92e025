import test from 'ava';
import { ethChain } from '@gw/chain-eth';
import { isAppError } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin, REPLENISH_JOB } from '@gw/plugin-address-pool';
import { CLI_ACTOR, tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { projectWithWallets, waitFor } from './helpers.js';

// Worker role: pg-boss runs the replenish job.
let gw: TestKernel;
let operatorId: string;
test.before(async () => {
  gw = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin],
    chains: [ethChain],
    role: 'all',
    config: { 'plugins.address-pool.targetFree': 8 },
  });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('pool-jobs', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
});

const available = async (projectId: string): Promise<number> =>
  Number((await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId, state: 'available' }).count<{ n: string }[]>({ n: '*' }))[0]!.n);

test('an empty pool answers pool_exhausted and asks the replenish job, which fills it through pg-boss', async (t) => {
  const { db, addressPoolService } = gw.kernel.cradle;
  const projectId = await projectWithWallets(gw, operatorId, ['eth']);
  const allocate = () => db.transaction((trx) => addressPoolService.allocate(trx, { projectId, chain: 'eth', invoiceRef: 'r' }));
  const error = await t.throwsAsync(allocate());
  t.true(isAppError(error));
  t.like(error, { code: 'pool_exhausted' });
  await waitFor(async () => (await available(projectId)) === 8);

  // Allocating below the low watermark (half the target) asks for more again.
  for (let i = 0; i < 5; i++) t.false((await allocate()).isOverlay);
  await waitFor(async () => (await available(projectId)) === 8);
  t.is(Number((await db('address_pool_addresses').where({ project_id: projectId }).count<{ n: string }[]>({ n: '*' }))[0]!.n), 13);
});

test('a replenish job without data fills every verified pool and recycles ended cooldowns', async (t) => {
  const { db, jobs } = gw.kernel.cradle;
  const a = await projectWithWallets(gw, operatorId, ['eth']);
  const b = await projectWithWallets(gw, operatorId, ['eth']);
  await jobs.send(REPLENISH_JOB, {});
  await waitFor(async () => (await available(a)) === 8 && (await available(b)) === 8);
  await db('address_pool_addresses').where({ project_id: a }).update({ state: 'cooldown', cooldown_until: new Date(Date.now() - 1000) });
  await jobs.send(REPLENISH_JOB, {});
  await waitFor(async () => (await db('address_pool_addresses').where({ project_id: a, state: 'cooldown' }).first()) === undefined);
  t.is(await available(a), 8, 'recycled rows count towards the target: nothing new derived');
});

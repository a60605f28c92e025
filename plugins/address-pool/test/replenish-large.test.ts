import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { tonChain } from '@gw/chain-ton';
import { startTestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { projectWithWallets } from './helpers.js';

test('one replenish run of more rows than one statement can bind (9 parameters per row, 65,535 at most)', async (t) => {
  const gw = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, addressPoolPlugin],
    chains: [tonChain],
    role: 'gateway',
    config: { 'plugins.address-pool.targetFree': 8000, 'plugins.address-pool.replenishBatchMax': 8000 },
  });
  try {
    const operatorId = (await gw.kernel.cradle.tenancyOperators.create('large', CLI_ACTOR)).id;
    const projectId = await projectWithWallets(gw, operatorId, ['ton']);
    const [report] = await gw.kernel.cradle.addressPoolReplenisher.replenish({ projectId });
    t.is(report!.derived, 8000);
    const { n } = (await gw.kernel.cradle.db('address_pool_addresses').where({ project_id: projectId }).count('* as n'))[0] as { n: string };
    t.is(Number(n), 8000);
  } finally {
    await gw.close();
  }
});

import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { ethChain } from '@gw/chain-eth';
import { tronChain } from '@gw/chain-tron';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { addressPoolPlugin } from '@gw/plugin-address-pool';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
// The operator CLI itself (not a package dependency: the CLI app depends on this plugin).
import { cliRunner } from '@gw/testing';
import { projectWithWallets } from './helpers.js';

const plugins = [tenancyPlugin, walletsPlugin, addressPoolPlugin];
const chains = [ethChain, tronChain];
let gw: TestKernel;
let operatorId: string;
test.before(async () => {
  gw = await startTestKernel({ plugins, chains, role: 'gateway', config: { 'plugins.address-pool.targetFree': 4 } });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('pool-cli', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
});

const run = cliRunner({ plugins, chains, databaseUrl: () => gw.database.url, overrides: () => ({ 'plugins.address-pool.targetFree': 4 }) });
const cli = (...argv: string[]) => run(...argv, '--json');

test('pool replenish, status and activate from the operator CLI', async (t) => {
  const projectId = await projectWithWallets(gw, operatorId, ['eth', 'tron']);
  const filled = await cli('pool', 'replenish', '--project', projectId);
  t.is(filled.code, 0);
  t.deepEqual(
    filled.json.map((r: { chain: string; derived: number }) => [r.chain, r.derived]),
    [
      ['eth', 4],
      ['tron', 4],
    ],
  );

  const status = await cli('pool', 'status', '--project', projectId, '--chain', 'tron');
  t.is(status.json.length, 1);
  // Issue 36: four derived, none activated, so none available for invoices (it said "4 available").
  t.like(status.json[0], {
    chain: 'tron',
    total: 4,
    available: 0,
    allocated: 0,
    activation_required: true,
    activated: 0,
    unactivated: 4,
    gap: 0,
    hard_cap: 10000,
    target_free: 4,
  });
  const address = status.json[0].awaiting_activation[0];
  t.is(address, 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');

  const activated = await cli('pool', 'activate', '--project', projectId, '--chain', 'tron', '--address', address);
  t.is(activated.code, 0);
  t.is(activated.json.activated.derivation_index, 0);
  const after = await cli('pool', 'status', '--project', projectId, '--chain', 'tron');
  t.like(after.json[0], { activated: 1, unactivated: 3, available: 1 });
  t.is(after.json[0].awaiting_activation.length, 3);
  const eth = await cli('pool', 'status', '--project', projectId, '--chain', 'eth');
  t.like(eth.json[0], { total: 4, available: 4, activation_required: false, activated: 4, unactivated: 0 });

  const wrongChain = await cli('pool', 'activate', '--project', projectId, '--chain', 'eth', '--address', address);
  t.is(wrongChain.code, 1);
  t.is(wrongChain.json.error_code, 'activation_not_required');
  const unknownChain = await cli('pool', 'status', '--project', projectId, '--chain', 'doge');
  t.is(unknownChain.json.error_code, 'validation_error');
});

/**
 * The dust floor's configuration (issue 33, finding 11): `plugins.invoices.dustFloorUnits`
 * overrides a coin's floor from its chain definition, and names only coins a chain has. (The floor
 * on real transfers is tested against anvil in plugins/watchers/test/evm-dust.test.ts.)
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { payInvoice } from '../src/testing.js';
import { projectWithPools, startInvoicesKernel } from './helpers.js';

let gw: TestKernel;

test.before(async () => {
  gw = await startInvoicesKernel({ 'plugins.invoices.dustFloorUnits': { eth: '5000' } });
});
test.after.always(async () => {
  await gw?.close();
});

test('an override replaces the definition floor of its coin only; a receipt below it changes nothing, one at it counts', async (t) => {
  const { invoicesLifecycle, invoicesService, tenancyOperators, tenancyProjects } = gw.kernel.cradle;
  t.is(invoicesLifecycle.dustFloor('eth', 'eth'), 5000n);
  t.is(invoicesLifecycle.dustFloor('eth', 'usdc_erc20'), 10_000n, 'the definition floor of the other coins');
  t.is(invoicesLifecycle.dustFloor('btc', 'btc'), 546n);
  const operatorId = (await tenancyOperators.create('invoices-dust', CLI_ACTOR)).id;
  const project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const principal = (await tenancyProjects.principal(project.projectId))!;
  const { invoice } = await invoicesService.create(principal, { external_id: 'order-dust', coin: 'eth', amount_crypto: '0.01' }, CLI_ACTOR);
  t.is(await payInvoice(gw.kernel.cradle, project.projectId, invoice.id, { amountUnits: 4999n }), undefined, 'no event');
  t.like(await invoicesService.get(project.projectId, invoice.id), { status: 'pending', transactions_total: 0 });
  t.truthy(await payInvoice(gw.kernel.cradle, project.projectId, invoice.id, { amountUnits: 5000n }));
  t.like(await invoicesService.get(project.projectId, invoice.id), { status: 'detected', transactions_total: 1 });
});

test('an override for a coin no chain has stops the start', async (t) => {
  await t.throwsAsync(startInvoicesKernel({ 'plugins.invoices.dustFloorUnits': { doge: '1' } }), {
    message: /plugins\.invoices\.dustFloorUnits names coin "doge"/,
  });
});

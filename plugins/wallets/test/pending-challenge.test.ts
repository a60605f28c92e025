import test from 'ava';
import { ethChain } from '@gw/chain-eth';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { ethWallet } from '@gw/testing';

// The dashboard shows a pending wallet's challenge again after the register page is gone (issue 20).

let gw: TestKernel;
test.before(async () => {
  gw = await startTestKernel({ plugins: [tenancyPlugin, walletsPlugin], chains: [ethChain], role: 'cli' });
});
test.after.always(async () => {
  await gw?.close();
});

test('pendingChallenge returns the challenge register gave while the binding is pending, and nothing once verified or absent', async (t) => {
  const { tenancyProjects, walletsWallets } = gw.kernel.cradle;
  const { project } = await tenancyProjects.create({ name: 'pending-challenge', kind: 'testnet' }, CLI_ACTOR);
  t.is(await walletsWallets.pendingChallenge(project.id, 'eth'), undefined);
  const { challenge } = await walletsWallets.register({ projectId: project.id, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  t.deepEqual(await walletsWallets.pendingChallenge(project.id, 'eth'), challenge);
  await walletsWallets.verify({ projectId: project.id, chain: 'eth', signature: await ethWallet.sign(challenge.message) }, CLI_ACTOR);
  t.is(await walletsWallets.pendingChallenge(project.id, 'eth'), undefined);
});

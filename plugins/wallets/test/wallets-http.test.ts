import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { btcChain } from '@gw/chain-btc';
import { ethChain } from '@gw/chain-eth';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { btcTestnetWallet, btcWallet, ethWallet } from '@gw/testing';

let gw: TestKernel;
let operatorId: string;
test.before(async () => {
  gw = await startTestKernel({ plugins: [tenancyPlugin, walletsPlugin], chains: [btcChain, ethChain], role: 'gateway' });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('wallets-http', CLI_ACTOR)).id;
});
test.after.always(async () => {
  await gw?.close();
});

async function newProject(kind: 'production' | 'testnet' | 'sandbox') {
  const created = await gw.kernel.cradle.tenancyProjects.create({ name: `p-${Math.random().toString(36).slice(2)}`, kind, operator: operatorId }, CLI_ACTOR);
  return { projectId: created.project.id, secret: created.credentials.api_secret };
}

test("GET /api/v1/wallets lists the signed project's bindings", async (t) => {
  const { walletsWallets } = gw.kernel.cradle;
  const p = await newProject('production');
  const other = await newProject('production');
  t.deepEqual((await signedFetch(gw.url, '/api/v1/wallets', p)).body, []);

  const eth = await walletsWallets.register({ projectId: p.projectId, chain: 'eth', xpub: ethWallet.xpub }, CLI_ACTOR);
  await walletsWallets.verify({ projectId: p.projectId, chain: 'eth', signature: await ethWallet.sign(eth.challenge.message) }, CLI_ACTOR);
  await walletsWallets.register({ projectId: p.projectId, chain: 'btc', xpub: btcWallet.xpub }, CLI_ACTOR);
  await walletsWallets.register({ projectId: other.projectId, chain: 'btc', xpub: btcWallet.xpub }, CLI_ACTOR);

  const res = await signedFetch(gw.url, '/api/v1/wallets', p);
  t.is(res.status, 200);
  t.deepEqual(res.body, [
    {
      chain: 'btc',
      xpub: btcWallet.xpub,
      bound_at_iso: res.body[0].bound_at_iso,
      verified: false,
      verification_standard: 'bip84',
      derivation_path_prefix: "m/84'/0'/0'",
    },
    {
      chain: 'eth',
      xpub: ethWallet.xpub,
      bound_at_iso: eth.wallet.bound_at_iso,
      verified: true,
      verification_standard: 'bip44',
      derivation_path_prefix: "m/44'/60'/0'",
    },
  ]);
  t.false(Number.isNaN(Date.parse(res.body[0].bound_at_iso)));
});

test('testnet projects use it too; sandbox projects get production_project_required', async (t) => {
  const testnet = await newProject('testnet');
  await gw.kernel.cradle.walletsWallets.register({ projectId: testnet.projectId, chain: 'btc', xpub: btcTestnetWallet.xpub }, CLI_ACTOR);
  const res = await signedFetch(gw.url, '/api/v1/wallets', testnet);
  t.is(res.status, 200);
  t.is(res.body[0].derivation_path_prefix, "m/84'/1'/0'");
  const sandbox = await newProject('sandbox');
  const refused = await signedFetch(gw.url, '/api/v1/wallets', sandbox);
  t.is(refused.status, 403);
  t.is(refused.body.error_code, 'production_project_required');
  const unsigned = await fetch(`${gw.url}/api/v1/wallets`);
  t.is(unsigned.status, 401);
});

/**
 * The treasury against Litecoin Core (litecoind, regtest, read as a `bitcoin-core` provider as
 * ltc/regtest): what bcoin cannot show. bcoin 1.0.2's mempool refuses every double spend, so a
 * BIP 125 replacement is tested here, on a node that applies the replacement rules. Plans are
 * signed offline by `gateway-signer` from the test mnemonic, whose testnet account the project
 * registered. Litecoin Core accepts replacements only with `-mempoolreplacement=1` (its default is 0):
 * an operator whose node keeps the default cannot bump, and the gateway answers the node's refusal
 * (`treasury_broadcast_rejected`, the replacement `failed`).
 */
import test from 'ava';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FAST_RETRIES, FIXED_RATES, Litecoind, litecoindInstalled, projectWithPools, type TestProject } from '@gw/testing';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { treasuryPlugin } from '../src/index.js';
import { paidInvoice, scanOnce, signOffline, treasuryApi } from './treasury-helpers.js';

if (!litecoindInstalled()) throw new Error('litecoind is not installed: apt-get install -y litecoind (.ci/run installs it)');

let node: Litecoind;
let gw: TestKernel;
let project: TestProject;
let token: string;

test.before(async () => {
  node = await Litecoind.start({ persistMempool: false, txindex: true, replacement: true });
  await node.mine(101);
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin, treasuryPlugin],
    chains: ALL_CHAINS,
    role: 'all',
    config: {
      'chains.enabled': ['btc', 'eth', 'tron', 'ada', 'polygon', 'bsc', 'ton', 'ltc'],
      'chains.testNetworks': { ltc: 'regtest' },
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': { ...FIXED_RATES, LTC: '80' },
      'plugins.watchers.chains': {
        ltc: {
          regtest: {
            providers: [{ name: 'litecoind', url: node.url, username: node.username, password: node.password, kind: 'bitcoin-core' }],
            startHeight: (await node.height()) + 1,
          },
        },
      },
      'plugins.address-pool.targetFree': 10,
      'plugins.address-pool.hardCap': 10,
      'plugins.watchers.scanIntervalSeconds': 3600,
      ...FAST_RETRIES,
      'plugins.treasury.networks': { ltc: { regtest: { feeRate: '2', feeCeiling: '100' } } },
      'plugins.treasury.trackCron': '0 0 1 1 *',
      'plugins.treasury.reconcileCron': '0 0 1 1 *',
    },
  });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('treasury-litecoind', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['ltc' as ChainId], 'testnet');
  token = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: operatorId }, CLI_ACTOR)).token;
});
test.after.always(async () => {
  await gw?.close();
  await node?.stop();
});

const api = treasuryApi(
  () => gw,
  () => token,
);
const scan = () => scanOnce(gw, 'ltc', 'regtest');

test.serial(
  'an RBF bump replaces a stuck sweep: a new plan over the same inputs at a higher fee, signed, broadcast in place of the first, confirmed',
  async (t) => {
    const paid = await paidInvoice(gw, project, 'ltc', 3_000_000n, (address, units) => node.send(address, units));
    await node.mine(6);
    await scan();
    const destination = await node.rpc<string>('getnewaddress', []);
    const slow = await api('POST', '/api/v1/treasury/plans', {
      chain: 'ltc',
      network: 'regtest',
      select: { invoice_ids: [paid.id] },
      destination: { kind: 'external', address: destination },
      fee_rate: '1',
    });
    t.is(slow.status, 201, JSON.stringify(slow.body));
    t.is((await api('POST', `/api/v1/treasury/plans/${slow.body.id}/signed`, { signed: (await signOffline(slow.body.plan_file)).signed })).status, 200);
    t.is((await api('POST', `/api/v1/treasury/plans/${slow.body.id}/broadcast`)).body.status, 'broadcast');
    t.deepEqual(await node.mempool(), [slow.body.txid]);

    const bump = await api('POST', `/api/v1/treasury/plans/${slow.body.id}/bump`, { fee_rate: '5' });
    t.is(bump.status, 201, JSON.stringify(bump.body));
    t.like(bump.body, { kind: 'bump', status: 'awaiting_signature', replaces_plan_id: slow.body.id, destination, value_units: '3000000' });
    t.true(BigInt(bump.body.fee_units) >= BigInt(slow.body.fee_units) + BigInt(bump.body.size), 'pays the old fee and its own size at the minimum relay rate');
    t.deepEqual(
      bump.body.inputs.map((i: { tx_hash: string; output_index: number }) => `${i.tx_hash}:${i.output_index}`),
      slow.body.inputs.map((i: { tx_hash: string; output_index: number }) => `${i.tx_hash}:${i.output_index}`),
    );
    t.is((await api('GET', `/api/v1/treasury/plans/${slow.body.id}`)).body.status, 'replaced');

    t.is((await api('POST', `/api/v1/treasury/plans/${bump.body.id}/signed`, { signed: (await signOffline(bump.body.plan_file)).signed })).status, 200);
    const sent = await api('POST', `/api/v1/treasury/plans/${bump.body.id}/broadcast`);
    t.is(sent.body.status, 'broadcast', JSON.stringify(sent.body));
    t.deepEqual(await node.mempool(), [bump.body.txid], 'the replacement evicted the stuck sweep');

    await node.mine(6);
    await scan();
    const report = await gw.kernel.cradle.treasuryTracker.track();
    t.deepEqual(report.confirmed, [bump.body.id]);
    t.deepEqual(report.invalidated, []);
    t.is((await api('GET', `/api/v1/treasury/plans/${slow.body.id}`)).body.status, 'replaced');
    const mined = await node.rpc<{ vout: { value: number; n: number }[]; confirmations: number }>('getrawtransaction', [bump.body.txid, true]);
    t.is(mined.confirmations, 6);
    t.is(BigInt(Math.round(mined.vout[0]!.value * 1e8)), 3_000_000n - BigInt(bump.body.fee_units));
  },
);

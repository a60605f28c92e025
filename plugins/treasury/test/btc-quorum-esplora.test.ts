/**
 * The treasury spends nothing the watchers' quorum has not attested (issue 40, review finding 4):
 * on a network watched through providers of two operators (quorum 2), an output in a block that
 * only the scanning provider has reported yet is neither confirmed nor spendable; once the second
 * provider reports it too, it is both.
 *
 * Public providers cannot be reached here. Each provider is a local Esplora server that REPLAYS
 * RECORDED REAL answers (`@gw/plugin-watchers/testing`, over the BTC package's recordings,
 * chains/btc/test/fixtures/README.md): testnet3 block 1259783, whose transaction `9fca06b2…` pays
 * 1,000,000 sats (output 0) to receive address 0 of the test key every test project registers, and
 * that transaction's recorded raw hex (`GET /tx/:txid/hex`, the plan's previous transaction). Built,
 * not recorded: each server's tip (the second one is behind the block at first). No invoice waits
 * at address 0, so the payment is an orphan: money of the project the treasury may sweep, attested
 * at the project's threshold for btc (1 confirmation here).
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FAST_RETRIES, FIXED_RATES, stopAll } from '@gw/testing';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { watchersPlugin } from '@gw/plugin-watchers';
import { EsploraReplay, HEIGHT, scanOnce, TXID } from '@gw/plugin-watchers/testing';
import { treasuryPlugin } from '../src/index.js';
import { treasuryApi, treasuryOperator } from './treasury-helpers.js';

let gw: TestKernel;
let token: string;
let projectId: string;
let first: EsploraReplay;
let behind: EsploraReplay;

test.before(async () => {
  first = await EsploraReplay.start();
  behind = await EsploraReplay.start({ tip: HEIGHT - 1 });
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, watchersPlugin, treasuryPlugin],
    chains: ALL_CHAINS,
    role: 'gateway',
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.address-pool.targetFree': 4,
      'plugins.address-pool.hardCap': 4,
      ...FAST_RETRIES,
      'chains.testNetworks': { btc: 'testnet' },
      'plugins.watchers.publicProviders': false,
      'plugins.watchers.scanIntervalSeconds': 3600,
      'plugins.watchers.chains': {
        btc: {
          testnet: {
            providers: [
              { name: 'first', url: first.url, operator: 'alpha' },
              { name: 'behind', url: behind.url, operator: 'beta' },
            ],
            startHeight: HEIGHT,
          },
        },
      },
      'plugins.treasury.networks': { btc: { testnet: { feeRate: '2', feeCeiling: '50' } } },
      'plugins.treasury.trackCron': '0 0 1 1 *',
      'plugins.treasury.reconcileCron': '0 0 1 1 *',
    },
  });
  const operator = await treasuryOperator(gw, 'treasury-quorum', 'btc');
  token = operator.token;
  projectId = operator.project.projectId;
  // One confirmation: the one recorded block is the threshold depth, at which the providers are asked.
  await gw.kernel.cradle.invoicesPolicies.set(projectId, { confirmations: { btc: 1 } }, CLI_ACTOR);
});
test.after.always(() => stopAll(gw, first, behind));

const api = treasuryApi(
  () => gw,
  () => token,
);
const sweepOutput0 = () =>
  api('POST', '/api/v1/treasury/plans', {
    chain: 'btc',
    network: 'testnet',
    select: { outpoints: [{ tx_hash: TXID, output_index: 0 }] },
    destination: { kind: 'own' },
  });

test.serial('an output in a block that one provider of two has reported is neither confirmed nor spendable; reported by both, it is', async (t) => {
  t.is(gw.kernel.cradle.watchersRegistry.get('btc', 'testnet')!.quorum, 2);
  await scanOnce(gw, 'btc', 'testnet');
  const [output] = await gw.kernel.cradle.watchersOutputs.byOutpoints('btc', 'testnet', [{ txHash: TXID, outputIndex: 0 }]);
  t.like(output, { projectId, match: 'orphan', status: 'in_block', blockHeight: HEIGHT, amountUnits: 1_000_000n, attestation: null, confirmed: false });

  const balances = await api('GET', '/api/v1/treasury/balances?chain=btc&network=testnet&group_by=network');
  t.is(balances.status, 200, JSON.stringify(balances.body));
  t.like(balances.body.rows[0], { confirmed_units: '0', unconfirmed_units: '1000000', outputs: 1 });

  const named = await sweepOutput0();
  t.is(named.status, 422, JSON.stringify(named.body));
  t.like(named.body, { error_code: 'treasury_output_unconfirmed', details: { tx_hash: TXID, output_index: 0, attested: false } });
  const everything = await api('POST', '/api/v1/treasury/plans', {
    chain: 'btc',
    network: 'testnet',
    select: { project_id: projectId },
    destination: { kind: 'own' },
  });
  t.is(everything.body.error_code, 'treasury_nothing_to_move', 'a sweep of every confirmed output finds none');
  t.is((await gw.kernel.cradle.db('treasury_plans')).length, 0, 'nothing planned');

  // The second operator's provider reaches the block: both report the output, and it may be spent.
  behind.tip = HEIGHT;
  await scanOnce(gw, 'btc', 'testnet');
  const [attested] = await gw.kernel.cradle.watchersOutputs.byOutpoints('btc', 'testnet', [{ txHash: TXID, outputIndex: 0 }]);
  t.like(attested, { attestation: 'quorum', confirmed: true });
  const after = await api('GET', '/api/v1/treasury/balances?chain=btc&network=testnet&group_by=network');
  t.like(after.body.rows[0], { confirmed_units: '1000000', unconfirmed_units: '0' });
  const plan = await sweepOutput0();
  t.is(plan.status, 201, JSON.stringify(plan.body));
  t.like(plan.body, { chain: 'btc', network: 'testnet', status: 'awaiting_signature' });
  t.deepEqual(
    plan.body.inputs.map((i: { tx_hash: string; output_index: number }) => [i.tx_hash, i.output_index]),
    [[TXID, 0]],
  );
});

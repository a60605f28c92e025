/**
 * The treasury against Litecoin Core (litecoind, regtest, read as a `bitcoin-core` provider as
 * ltc/regtest): the end to end of the bcoin test on Litecoin (paid invoices to a plan signed with
 * the test seed's Litecoin account by @gw/chain-btc's TestSeedWallet, verified, broadcast,
 * confirmed, balances zero), and what bcoin cannot show. bcoin 1.0.2's mempool refuses every double spend, so a
 * BIP 125 replacement is tested here, on a node that applies the replacement rules. Plans are
 * signed offline by `gateway-signer` (the end to end: by TestSeedWallet) from the test mnemonic, whose testnet account the project
 * registered. Litecoin Core accepts replacements only with `-mempoolreplacement=1` (its default is 0):
 * an operator whose node keeps the default cannot bump, and the gateway answers the node's refusal
 * (`treasury_broadcast_rejected`, the replacement `failed`).
 */
import test from 'ava';
import { pbkdf2Sync } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { CLI_ACTOR } from '@gw/kernel';
import { startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FAST_RETRIES, FIXED_RATES, Litecoind, litecoindInstalled, MNEMONIC, type TestProject, stopAll } from '@gw/testing';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { TestSeedWallet } from '@gw/chain-btc/testing';
import { litecoinParams } from '@gw/chain-ltc';
import { watchersPlugin } from '@gw/plugin-watchers';
import { treasuryPlugin } from '../src/index.js';
import { paidInvoice, signOffline, treasuryApi, treasuryOperator } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

if (!litecoindInstalled()) throw new Error('litecoind is not installed: apt-get install -y litecoind (.ci/run installs it)');

bitcoin.initEccLib(ecc);
/** The account the test project registered (m/84'/1'/0' of the test mnemonic, as `ltcTestnetWallet`). */
const ACCOUNT = BIP32Factory(ecc)
  .fromSeed(pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'))
  .derivePath("m/84'/1'/0'");

let node: Litecoind;
let gw: TestKernel;
let project: TestProject;
let token: string;

test.before(async () => {
  node = await Litecoind.start({ persistMempool: false, txindex: true, mempoolReplacement: true });
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
  ({ project, token } = await treasuryOperator(gw, 'treasury-litecoind', 'ltc'));
});
test.after.always(() => stopAll(gw, node));

const api = treasuryApi(
  () => gw,
  () => token,
);
const scan = () => scanOnce(gw, 'ltc', 'regtest');

test.serial('end to end: paid invoices, a sweep plan, signed by the seed, verified, broadcast, confirmed; the balances are zero after', async (t) => {
  const paid = [];
  for (const units of [1_000_000n, 1_500_000n, 2_000_000n]) paid.push(await paidInvoice(gw, project, 'ltc', units, (address, u) => node.send(address, u)));
  await node.mine(6);
  await scan();
  const balances = () => api('GET', '/api/v1/treasury/balances?chain=ltc&network=regtest&group_by=network');
  t.like((await balances()).body.rows, [{ chain: 'ltc', network: 'regtest', coin: 'ltc', confirmed_units: '4500000', unconfirmed_units: '0', outputs: 3 }]);

  const destination = await node.rpc<string>('getnewaddress', []);
  const created = await api('POST', '/api/v1/treasury/plans', {
    chain: 'ltc',
    network: 'regtest',
    select: { invoice_ids: paid.map((p) => p.id) },
    destination: { kind: 'external', address: destination },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  const plan = created.body;
  t.like(plan, { kind: 'sweep', status: 'awaiting_signature', destination, value_units: '4500000' });
  t.is(plan.inputs.length, 3);

  // Signed as the operator's wallet would: the test seed's Litecoin testnet account (m/84'/1'/0'), partial signatures.
  const wallet = new TestSeedWallet(litecoinParams, 'regtest');
  const signed = wallet.sign(plan.plan_file.unsigned.data);
  const imported = await api('POST', `/api/v1/treasury/plans/${plan.id}/signed`, { signed });
  t.is(imported.status, 200, JSON.stringify(imported.body));
  t.is(imported.body.status, 'signed');
  const sent = await api('POST', `/api/v1/treasury/plans/${plan.id}/broadcast`);
  t.is(sent.body.status, 'broadcast', JSON.stringify(sent.body));
  t.deepEqual(await node.mempool(), [plan.txid]);

  await node.mine(6);
  await scan();
  t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).confirmed, [plan.id]);
  t.like((await api('GET', `/api/v1/treasury/plans/${plan.id}`)).body, { status: 'confirmed', confirmations: 6 });
  const mined = await node.rpc<{ vout: { value: number; n: number; scriptPubKey: { address?: string; addresses?: string[] } }[] }>('getrawtransaction', [
    plan.txid,
    true,
  ]);
  t.deepEqual(
    mined.vout.map((o) => [o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0], BigInt(Math.round(o.value * 1e8))]),
    [[destination, 4_500_000n - BigInt(plan.fee_units)]],
  );
  t.deepEqual((await balances()).body.rows, []);
});

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

    let bump = await api('POST', `/api/v1/treasury/plans/${slow.body.id}/bump`, { fee_rate: '5' });
    t.is(bump.status, 201, JSON.stringify(bump.body));
    t.like(bump.body, { kind: 'bump', status: 'awaiting_signature', replaces_plan_id: slow.body.id, destination, value_units: '3000000' });
    t.true(BigInt(bump.body.fee_units) >= BigInt(slow.body.fee_units) + BigInt(bump.body.size), 'pays the old fee and its own size at the minimum relay rate');
    t.deepEqual(
      bump.body.inputs.map((i: { tx_hash: string; output_index: number }) => `${i.tx_hash}:${i.output_index}`),
      slow.body.inputs.map((i: { tx_hash: string; output_index: number }) => `${i.tx_hash}:${i.output_index}`),
    );
    t.is((await api('GET', `/api/v1/treasury/plans/${slow.body.id}`)).body.status, 'replaced');
    // A replacement cancelled before it is sent puts the stuck sweep back: broadcast, bumpable again.
    t.is((await api('POST', `/api/v1/treasury/plans/${bump.body.id}/cancel`)).body.status, 'cancelled');
    t.is((await api('GET', `/api/v1/treasury/plans/${slow.body.id}`)).body.status, 'broadcast');
    bump = await api('POST', `/api/v1/treasury/plans/${slow.body.id}/bump`, { fee_rate: '5' });
    t.is(bump.status, 201, JSON.stringify(bump.body));
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

test.serial('reconciliation reports what the provider and the record disagree on, and corrects nothing', async (t) => {
  const paid = await paidInvoice(gw, project, 'ltc', 2_000_000n, (address, units) => node.send(address, units));
  await node.mine(6);
  await scan();
  const clean = await gw.kernel.cradle.treasuryReconciliation.runAll();
  t.like(
    clean.find((r) => r.chain === 'ltc'),
    { network: 'regtest', differences: 0, failure: null, provider_calls: 1 },
  );

  // The payment is spent from outside (the same seed, another wallet) back to its own address, and
  // mined; the gateway has not scanned the block yet.
  const plan = await api('POST', '/api/v1/treasury/plans', {
    chain: 'ltc',
    network: 'regtest',
    select: { invoice_ids: [paid.id] },
    destination: { kind: 'own' },
  });
  const [input] = plan.body.plan_file.inputs;
  await api('POST', `/api/v1/treasury/plans/${plan.body.id}/cancel`);
  const key = ACCOUNT.derive(0).derive(Number(input.path.split('/').pop()));
  const script = bitcoin.payments.p2wpkh({ pubkey: key.publicKey }).output!;
  const psbt = new bitcoin.Psbt();
  psbt.addInput({ hash: paid.txid, index: input.output_index, witnessUtxo: { script, value: 2_000_000n } });
  psbt.addOutput({ script, value: 1_990_000n });
  psbt.signInput(0, key);
  psbt.finalizeAllInputs();
  const outside = psbt.extractTransaction();
  await node.rpc('sendrawtransaction', [outside.toHex()]);
  await node.mine(1);

  const [run] = (await gw.kernel.cradle.treasuryReconciliation.runAll()).filter((r) => r.chain === 'ltc');
  t.like(run, { differences: 2, failure: null });
  const report = await api('GET', '/api/v1/treasury/reconciliation');
  t.is(report.status, 200, JSON.stringify(report.body));
  const found = report.body.differences.filter((d: { reconciliation_id: string }) => d.reconciliation_id === run!.id);
  t.like(
    found.find((d: { kind: string }) => d.kind === 'missing_at_provider'),
    { tx_hash: paid.txid, output_index: input.output_index, gateway_units: '2000000', provider_units: null },
  );
  t.like(
    found.find((d: { kind: string }) => d.kind === 'unknown_to_gateway'),
    { tx_hash: outside.getId(), output_index: 0, gateway_units: null, provider_units: '1990000' },
  );
  // Another operator's token sees the runs but none of these addresses.
  const stranger = (await gw.kernel.cradle.tenancyOperators.create('treasury-stranger', CLI_ACTOR)).id;
  const strangerToken = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read'], operator: stranger }, CLI_ACTOR)).token;
  const theirs = await api('GET', '/api/v1/treasury/reconciliation', undefined, strangerToken);
  t.is(theirs.status, 200);
  t.true(theirs.body.runs.some((r: { id: string }) => r.id === run!.id));
  t.deepEqual(theirs.body.differences, [], 'no difference at another operator’s addresses');
  // Nothing corrected: the record still holds the payment until the watcher reads the spending block.
  const before = await api('GET', `/api/v1/treasury/outputs?chain=ltc&network=regtest&address=${paid.address}`);
  t.true(before.body.outputs.some((o: { tx_hash: string }) => o.tx_hash === paid.txid));
  await scan();
  const after = await api('GET', `/api/v1/treasury/outputs?chain=ltc&network=regtest&address=${paid.address}`);
  t.false(after.body.outputs.some((o: { tx_hash: string }) => o.tx_hash === paid.txid));
  const [again] = (await gw.kernel.cradle.treasuryReconciliation.runAll()).filter((r) => r.chain === 'ltc');
  const left = (await api('GET', '/api/v1/treasury/reconciliation')).body.differences.filter(
    (d: { reconciliation_id: string }) => d.reconciliation_id === again!.id,
  );
  t.false(left.some((d: { kind: string }) => d.kind === 'missing_at_provider'));
});

/**
 * The treasury against a real Bitcoin node (issue 35, "Bitcoin end to end on bcoin"). Node: bcoin
 * 1.0.2 on regtest, read through the `bitcoin-core` JSON-RPC provider kind as btc/regtest. Payments
 * are real wallet transactions mined into real blocks; the plan's PSBT is signed here with
 * bitcoinjs-lib from the test mnemonic (the account key the project registered), exactly as a
 * wallet holding that seed would; the gateway verifies, broadcasts and tracks it on the node.
 */
import test from 'ava';
import { pbkdf2Sync } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { type Bcoin, MNEMONIC, projectWithPools, type TestProject, stopAll } from '@gw/testing';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { paidInvoice as paidInvoiceOf, signOffline, startBcoinTreasury, treasuryApi, treasuryOperator } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

bitcoin.initEccLib(ecc);
const bip32 = BIP32Factory(ecc);
const REGTEST = bitcoin.networks.regtest;
/** The account the test projects registered (`BTC_TPUB`: m/84'/1'/0' of the test mnemonic). */
const ACCOUNT = bip32.fromSeed(pbkdf2Sync(MNEMONIC.normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512'), REGTEST).derivePath("m/84'/1'/0'");
const FEE_RATE = 2n;

let node: Bcoin;
let gw: TestKernel;
let project: TestProject;
let token: string;
let readOnly: string;

test.before(async () => {
  ({ node, gw } = await startBcoinTreasury({ plugins: WEBHOOK_PLUGINS, poolSize: 20, feeRate: FEE_RATE }));
  const operator = await treasuryOperator(gw, 'treasury-bcoin', 'btc');
  ({ project, token } = operator);
  readOnly = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['invoices:read'], operator: operator.operatorId }, CLI_ACTOR)).token;
});
test.after.always(() => stopAll(gw, node));

const api = treasuryApi(
  () => gw,
  () => token,
);
const scan = () => scanOnce(gw, 'btc', 'regtest');
const paidInvoice = (units: bigint) => paidInvoiceOf(gw, project, 'btc', units, (address, sats) => node.send(address, sats));

/** Signs each input with the account's key at the path its derivation names below the bare account key (`m/<branch>/<index>`). */
function signWithAccount(psbt: bitcoin.Psbt): void {
  psbt.data.inputs.forEach((input, i) => {
    const [branch, index] = input.bip32Derivation![0]!.path.split('/').slice(-2).map(Number);
    psbt.signInput(i, ACCOUNT.derive(branch!).derive(index!));
  });
}

async function nodeAddress(): Promise<string> {
  return (await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;
}

async function outputValue(txid: string, index: number): Promise<bigint> {
  const tx = await node.rpc<{ vout: { value: number; n: number }[] }>('getrawtransaction', [txid, 1]);
  return BigInt(Math.round(tx.vout.find((o) => o.n === index)!.value * 1e8));
}

let invoices: { id: string; address: string; txid: string }[] = [];

test.serial('five paid invoices show in the balances, with the outputs behind them; partners’ keys and tokens without the scope are refused', async (t) => {
  invoices = [];
  for (let i = 0; i < 5; i++) invoices.push(await paidInvoice(1_000_000n + BigInt(i) * 10_000n));
  await node.mine(6);
  await scan();

  const balances = await api('GET', '/api/v1/treasury/balances?chain=btc&network=regtest&group_by=network');
  t.is(balances.status, 200, JSON.stringify(balances.body));
  t.like(balances.body.rows[0], {
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    confirmed_units: '5100000',
    unconfirmed_units: '0',
    outputs: 5,
    unclaimed_units: '0',
  });
  const outputs = await api('GET', `/api/v1/treasury/outputs?chain=btc&network=regtest&project_id=${project.projectId}`);
  t.is(outputs.body.outputs.length, 5);
  t.deepEqual(outputs.body.outputs.map((o: { invoice_id: string }) => o.invoice_id).sort(), invoices.map((i) => i.id).sort());
  t.true(outputs.body.outputs.every((o: { plan_id: null; match: string }) => o.plan_id === null && o.match === 'invoice'));

  // The project's own signed API key: not a credential here.
  const partner = await signedFetch(gw.url, '/api/v1/treasury/balances', project);
  t.is(partner.status, 401);
  t.is(partner.body.error_code, 'auth_invalid');
  const noScope = await api('GET', '/api/v1/treasury/balances', undefined, readOnly);
  t.is(noScope.status, 403);
  t.is(noScope.body.error_code, 'insufficient_scope');
  const noWrite = await api('POST', '/api/v1/treasury/plans', { chain: 'btc', network: 'regtest', select: {}, destination: { kind: 'own' } }, readOnly);
  t.is(noWrite.body.error_code, 'insufficient_scope');
});

test.serial(
  'a plan gathers the five to an external address; a second plan over them, a wrong-network destination and a fee above the ceiling are refused',
  async (t) => {
    const destination = await nodeAddress();
    const body = {
      chain: 'btc',
      network: 'regtest',
      select: { invoice_ids: invoices.map((i) => i.id) },
      destination: { kind: 'external', address: destination },
    };

    const wrongNetwork = await api('POST', '/api/v1/treasury/plans', {
      ...body,
      destination: { kind: 'external', address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' },
    });
    t.is(wrongNetwork.status, 422);
    t.is(wrongNetwork.body.error_code, 'treasury_wrong_network');
    const tooDear = await api('POST', '/api/v1/treasury/plans', { ...body, fee_rate: '51' });
    t.is(tooDear.body.error_code, 'treasury_fee_above_ceiling');

    const created = await api('POST', '/api/v1/treasury/plans', body);
    t.is(created.status, 201, JSON.stringify(created.body));
    const plan = created.body;
    t.like(plan, {
      kind: 'sweep',
      status: 'awaiting_signature',
      destination,
      destination_kind: 'external',
      value_units: '5100000',
      fee_rate: String(FEE_RATE),
    });
    t.is(plan.inputs.length, 5);
    t.is(BigInt(plan.send_units) + BigInt(plan.fee_units), 5_100_000n);
    t.is(BigInt(plan.fee_units), FEE_RATE * BigInt(plan.size));
    t.like(plan.plan_file, { format: 'gateway-treasury-plan', version: 1, plan_id: plan.id, chain: 'btc', network: 'regtest', fee_units: plan.fee_units });
    t.deepEqual(plan.plan_file.outputs, [{ address: destination, amount_units: plan.send_units, destination: { kind: 'external' } }]);

    const again = await api('POST', '/api/v1/treasury/plans', body);
    t.is(again.status, 409);
    t.is(again.body.error_code, 'treasury_outputs_planned');
    t.is(again.body.details.plan_id, plan.id);
    // Nothing half-written: still one plan, holding the five.
    const list = await api('GET', '/api/v1/treasury/plans');
    t.deepEqual(
      list.body.plans.map((p: { id: string }) => p.id),
      [plan.id],
    );
    const held = await api('GET', `/api/v1/treasury/outputs?chain=btc&network=regtest`);
    t.true(held.body.outputs.every((o: { plan_id: string }) => o.plan_id === plan.id));
  },
);

test.serial(
  'a tampered signed file is refused and nothing is stored; the one gateway-signer signed offline is verified, imported twice with one answer, broadcast and confirmed; balances go to zero and the destination received the sum minus the fee',
  async (t) => {
    const plan = (await api('GET', '/api/v1/treasury/plans')).body.plans[0];

    // Tampered: the same inputs, a smaller output (a higher fee), signed by the right key.
    const tampered = new bitcoin.Psbt({ network: REGTEST });
    const original = bitcoin.Psbt.fromBase64(plan.plan_file.unsigned.data, { network: REGTEST });
    original.txInputs.forEach((input, i) => {
      tampered.addInput({
        hash: input.hash,
        index: input.index,
        sequence: input.sequence!,
        witnessUtxo: original.data.inputs[i]!.witnessUtxo!,
        bip32Derivation: original.data.inputs[i]!.bip32Derivation!,
      });
    });
    tampered.addOutput({ script: original.txOutputs[0]!.script, value: original.txOutputs[0]!.value - 1000n });
    signWithAccount(tampered);
    tampered.finalizeAllInputs();
    const refused = await api('POST', `/api/v1/treasury/plans/${plan.id}/signed`, { signed: tampered.toBase64() });
    t.is(refused.status, 422);
    t.is(refused.body.error_code, 'treasury_signed_mismatch');
    t.is((await api('GET', `/api/v1/treasury/plans/${plan.id}`)).body.status, 'awaiting_signature');
    t.deepEqual(await node.mempool(), []);

    // The offline signer shows the destination as external and the fee, then writes the signed file.
    const { signed: file, review } = await signOffline(plan.plan_file);
    t.regex(review, /EXTERNAL/);
    t.true(review.includes(plan.destination));
    const imported = await api('POST', `/api/v1/treasury/plans/${plan.id}/signed`, { signed: file });
    t.is(imported.status, 200, JSON.stringify(imported.body));
    t.is(imported.body.status, 'signed');
    const twice = await api('POST', `/api/v1/treasury/plans/${plan.id}/signed`, { signed: file });
    t.deepEqual(twice.body, imported.body);

    const sent = await api('POST', `/api/v1/treasury/plans/${plan.id}/broadcast`);
    t.is(sent.status, 200, JSON.stringify(sent.body));
    t.is(sent.body.status, 'broadcast');
    // bcoin answers sendrawtransaction before its mempool has taken the transaction in.
    await waitFor(async () => (await node.mempool()).includes(plan.txid), 20_000);
    t.deepEqual(await node.mempool(), [plan.txid]);

    await node.mine(6);
    await scan();
    const report = await gw.kernel.cradle.treasuryTracker.track();
    t.deepEqual(report.confirmed, [plan.id]);
    const confirmed = await api('GET', `/api/v1/treasury/plans/${plan.id}`);
    t.like(confirmed.body, { status: 'confirmed', confirmations: 6 });

    const balances = await api('GET', '/api/v1/treasury/balances?chain=btc&network=regtest&group_by=network');
    t.true(
      balances.body.rows.every((r: { confirmed_units: string; unconfirmed_units: string }) => r.confirmed_units === '0' && r.unconfirmed_units === '0'),
      JSON.stringify(balances.body),
    );
    t.is(await outputValue(plan.txid, 0), 5_100_000n - BigInt(plan.fee_units));

    const audit = await gw.kernel.cradle.db('kernel_audit_log').where('target', `treasury_plan:${plan.id}`).orderBy('id').pluck('action');
    t.deepEqual(audit, ['treasury.plan.create', 'treasury.plan.sign_refused', 'treasury.plan.sign', 'treasury.plan.broadcast', 'treasury.plan.confirmed']);
  },
);

test.serial(
  'an output spent from outside the gateway (the same keys, in another wallet) drops out of the balances and invalidates the open plan over it',
  async (t) => {
    const paid = await paidInvoice(2_000_000n);
    await node.mine(6);
    await scan();
    const created = await api('POST', '/api/v1/treasury/plans', {
      chain: 'btc',
      network: 'regtest',
      select: { invoice_ids: [paid.id] },
      destination: { kind: 'own' },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    t.like(created.body, { status: 'awaiting_signature', destination_kind: 'own' });
    t.is(created.body.plan_file.outputs[0].destination.kind, 'own');
    t.regex(created.body.plan_file.outputs[0].destination.path, /\/1\/0$/);

    // The operator spends the payment with their own wallet (same seed): a transaction the gateway never saw planned.
    const [input] = created.body.plan_file.inputs;
    const index = Number(input.path.split('/').pop());
    const psbt = new bitcoin.Psbt({ network: REGTEST });
    const key = ACCOUNT.derive(0).derive(index);
    psbt.addInput({
      hash: paid.txid,
      index: input.output_index,
      witnessUtxo: { script: bitcoin.payments.p2wpkh({ pubkey: key.publicKey, network: REGTEST }).output!, value: 2_000_000n },
    });
    psbt.addOutput({ address: await nodeAddress(), value: 1_990_000n });
    psbt.signInput(0, key);
    psbt.finalizeAllInputs();
    const outside = psbt.extractTransaction().getId();
    await node.rpc('sendrawtransaction', [psbt.extractTransaction().toHex()]);
    await node.mine(1);
    await scan();

    const report = await gw.kernel.cradle.treasuryTracker.track();
    t.deepEqual(report.invalidated, [created.body.id]);
    const invalidated = await api('GET', `/api/v1/treasury/plans/${created.body.id}`);
    t.is(invalidated.body.status, 'invalidated');
    t.regex(invalidated.body.failure, new RegExp(outside));
    const balances = await api('GET', '/api/v1/treasury/balances?chain=btc&network=regtest&group_by=network');
    t.true(
      balances.body.rows.every((r: { confirmed_units: string }) => r.confirmed_units === '0'),
      JSON.stringify(balances.body),
    );
    const spentPlan = await api('POST', '/api/v1/treasury/plans', {
      chain: 'btc',
      network: 'regtest',
      select: { invoice_ids: [paid.id] },
      destination: { kind: 'own' },
    });
    t.is(spentPlan.body.error_code, 'treasury_output_spent');
  },
);

test.serial(
  'a plan over an unconfirmed output, on a chain this build leaves off (400, not in the chain enum) or on a network nobody watches (422) is refused and nothing is planned',
  async (t) => {
    const paid = await paidInvoice(1_200_000n);
    await scan();
    const listed = await api('GET', '/api/v1/treasury/outputs?chain=btc&network=regtest&limit=100');
    const output = listed.body.outputs.find((o: { tx_hash: string }) => o.tx_hash === paid.txid);
    t.truthy(output, JSON.stringify(listed.body));
    t.is(output.block_height, null, 'only in the mempool');
    const before = (await api('GET', '/api/v1/treasury/plans')).body.plans.length;
    const unconfirmed = await api('POST', '/api/v1/treasury/plans', {
      chain: 'btc',
      network: 'regtest',
      select: { outpoints: [{ tx_hash: paid.txid, output_index: output.output_index }] },
      destination: { kind: 'own' },
    });
    t.is(unconfirmed.status, 422, JSON.stringify(unconfirmed.body));
    t.is(unconfirmed.body.error_code, 'treasury_output_unconfirmed');
    // A chain the build leaves off is not in the API's chain enum (as everywhere in the API).
    const offChain = await api('POST', '/api/v1/treasury/plans', { chain: 'ltc', network: 'regtest', select: {}, destination: { kind: 'own' } });
    t.is(offChain.status, 400, JSON.stringify(offChain.body));
    t.like(offChain.body, { error_code: 'validation_error', details: { field: 'chain' } });
    const unwatched = await api('POST', '/api/v1/treasury/plans', { chain: 'btc', network: 'bitcoin', select: {}, destination: { kind: 'own' } });
    t.is(unwatched.status, 422, JSON.stringify(unwatched.body));
    t.is(unwatched.body.error_code, 'treasury_unavailable');
    t.is((await api('GET', '/api/v1/treasury/plans')).body.plans.length, before, 'nothing planned');
    await node.mine(6);
    await scan();
  },
);

test.serial('plans made at once over the same output: exactly one is made, the others are refused by the held-outputs index', async (t) => {
  const paid = await paidInvoice(1_500_000n);
  await node.mine(6);
  await scan();
  const body = { chain: 'btc', network: 'regtest', select: { invoice_ids: [paid.id] }, destination: { kind: 'own' } };
  const answers = await Promise.all([1, 2, 3, 4].map(() => api('POST', '/api/v1/treasury/plans', body)));
  t.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409]);
  t.true(answers.filter((a) => a.status === 409).every((a) => a.body.error_code === 'treasury_outputs_planned'));
  const made = answers.find((a) => a.status === 201)!.body;
  const held = await gw.kernel.cradle.db('treasury_plan_inputs').where({ tx_hash: paid.txid, held: true }).pluck('plan_id');
  t.deepEqual(held, [made.id]);
  // Cancelled, its output is free for the next plan.
  t.is((await api('POST', `/api/v1/treasury/plans/${made.id}/cancel`)).body.status, 'cancelled');
  const next = await api('POST', '/api/v1/treasury/plans', body);
  t.is(next.status, 201, JSON.stringify(next.body));
  t.is((await api('POST', `/api/v1/treasury/plans/${next.body.id}/cancel`)).body.status, 'cancelled');
});

test.serial('CPFP: a payment left at the lowest fee is accelerated by a child paying for both at the target rate, and both confirm', async (t) => {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `t-${Math.random().toString(36).slice(2)}`, coin: 'btc', amount_crypto: '0.02' },
  });
  // The payer's wallet pays 1 sat/vB (1000 sat/kvB): the floor.
  const parent = (
    await node.wallet<{ hash: string }>('POST', '/wallet/primary/send', { rate: 1000, outputs: [{ address: created.body.address, value: 2_000_000 }] })
  ).hash;
  await scan();
  const outputs = await api('GET', `/api/v1/treasury/outputs?chain=btc&network=regtest&address=${created.body.address}`);
  const output = outputs.body.outputs.find((o: { tx_hash: string }) => o.tx_hash === parent);
  t.is(output.block_height, null);

  const child = await api('POST', '/api/v1/treasury/accelerate', {
    chain: 'btc',
    network: 'regtest',
    tx_hash: parent,
    output_index: output.output_index,
    fee_rate: '10',
  });
  t.is(child.status, 201, JSON.stringify(child.body));
  t.like(child.body, { kind: 'accelerate', parent_txid: parent, destination_kind: 'own', status: 'awaiting_signature' });
  const state = await gw.kernel.cradle.watchersOutputs.treasuryOf('btc', 'regtest')!.transaction(parent);
  t.true(state!.feeUnits! + BigInt(child.body.fee_units) >= 10n * BigInt(state!.size! + child.body.size), 'parent and child together pay the target rate');

  await api('POST', `/api/v1/treasury/plans/${child.body.id}/signed`, { signed: (await signOffline(child.body.plan_file)).signed });
  t.is((await api('POST', `/api/v1/treasury/plans/${child.body.id}/broadcast`)).body.status, 'broadcast');
  await waitFor(async () => (await node.mempool()).includes(child.body.txid), 20_000);
  t.true((await node.mempool()).includes(parent));
  await node.mine(6);
  await scan();
  t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).confirmed, [child.body.id]);
  const mined = await node.rpc<{ confirmations: number }>('getrawtransaction', [parent, 1]);
  t.is(mined.confirmations, 6);
});

test.serial('a plan waiting for its fee holds its outputs and is built by the track job once the next-block rate falls to its limit', async (t) => {
  const paid = await paidInvoice(1_200_000n);
  await node.mine(6);
  await scan();
  const body = { chain: 'btc', network: 'regtest', select: { invoice_ids: [paid.id] }, destination: { kind: 'own' }, max_fee_rate: '1' };
  const waiting = await api('POST', '/api/v1/treasury/plans', body);
  t.is(waiting.status, 201, JSON.stringify(waiting.body));
  t.like(waiting.body, { status: 'waiting_for_fee', max_fee_rate: '1', fee_units: null, txid: null, plan_file: null });
  t.is((await api('POST', '/api/v1/treasury/plans', { ...body, max_fee_rate: undefined })).body.error_code, 'treasury_outputs_planned');
  t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).proceeded, [], 'the next-block rate (2) is above the limit');

  // The operator's configured rate (standing in for the next-block estimate on regtest) falls to 1.
  const fees = gw.kernel.cradle.treasuryConfig.networks['btc']!['regtest'] as { feeRate?: string };
  fees.feeRate = '1';
  try {
    t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).proceeded, [waiting.body.id]);
  } finally {
    fees.feeRate = String(FEE_RATE);
  }
  const built = await api('GET', `/api/v1/treasury/plans/${waiting.body.id}`);
  t.like(built.body, { status: 'awaiting_signature', fee_rate: '1' });
  t.is(BigInt(built.body.fee_units), BigInt(built.body.size));
  t.is(built.body.plan_file.inputs[0].tx_hash, paid.txid);
  t.is((await api('POST', `/api/v1/treasury/plans/${waiting.body.id}/cancel`)).body.status, 'cancelled');
});

test.serial('the accounting export lists the money moved out per project with the fees, confirmed plans only', async (t) => {
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  const exported = await api('GET', `/api/v1/treasury/moved-out?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  t.is(exported.status, 200, JSON.stringify(exported.body));
  const confirmed = (await api('GET', '/api/v1/treasury/plans?status=confirmed')).body.plans as {
    id: string;
    value_units: string;
    fee_units: string;
    kind: string;
  }[];
  t.deepEqual(exported.body.rows.map((r: { plan_id: string }) => r.plan_id).sort(), confirmed.map((p) => p.id).sort());
  for (const plan of confirmed) {
    const [row] = exported.body.rows.filter((r: { plan_id: string }) => r.plan_id === plan.id);
    t.like(row, { project_id: project.projectId, value_units: plan.value_units, fee_units: plan.fee_units, kind: plan.kind });
  }
  t.true(confirmed.some((p) => p.kind === 'sweep') && confirmed.some((p) => p.kind === 'accelerate'));
});

test.serial('another operator’s token reaches none of these outputs or plans; a token bound to a project reaches that project only', async (t) => {
  const other = (await gw.kernel.cradle.tenancyOperators.create('treasury-other', CLI_ACTOR)).id;
  await projectWithPools(gw, other, ['btc' as ChainId], 'testnet');
  const stranger = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: other }, CLI_ACTOR)).token;
  const plan = (await api('GET', '/api/v1/treasury/plans?status=confirmed')).body.plans[0];
  const read = await api('GET', `/api/v1/treasury/plans/${plan.id}`, undefined, stranger);
  t.is(read.status, 404);
  t.is(read.body.error_code, 'treasury_plan_not_found');
  t.deepEqual((await api('GET', '/api/v1/treasury/plans', undefined, stranger)).body.plans, []);
  t.deepEqual((await api('GET', `/api/v1/treasury/outputs?chain=btc&network=regtest&project_id=${project.projectId}`, undefined, stranger)).body.outputs, []);
  const paid = await paidInvoice(1_100_000n);
  await node.mine(6);
  await scan();
  const steal = await api(
    'POST',
    '/api/v1/treasury/plans',
    { chain: 'btc', network: 'regtest', select: { invoice_ids: [paid.id] }, destination: { kind: 'external', address: await nodeAddress() } },
    stranger,
  );
  t.is(steal.status, 422);
  t.is(steal.body.error_code, 'treasury_nothing_to_move');

  const bound = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read'], project: project.projectId }, CLI_ACTOR)).token;
  const mine = await api('GET', `/api/v1/treasury/outputs?chain=btc&network=regtest`, undefined, bound);
  t.true(mine.body.outputs.length > 0 && mine.body.outputs.every((o: { project_id: string }) => o.project_id === project.projectId));
  t.is((await api('GET', `/api/v1/treasury/plans/${plan.id}`, undefined, bound)).status, 200);
  t.is((await api('GET', '/api/v1/treasury/reconciliation', undefined, bound)).body.error_code, 'insufficient_scope');
});

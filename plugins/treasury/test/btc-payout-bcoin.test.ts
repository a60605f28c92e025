/**
 * Payout plans on a real Bitcoin node (issue 37): the treasury's `treasuryPayouts` turns recipients
 * into a multi-output PSBT over the project's received outputs with change to its own change chain,
 * `gateway-signer` signs it offline, the gateway verifies, broadcasts and tracks it on bcoin 1.0.2
 * (regtest, read as btc/regtest). A tiny plugin contributes a `TREASURY_PLAN_OBSERVERS` observer
 * that records each status change as it sees it inside the change's transaction and outside it,
 * and throws when asked to, which must roll the change back.
 */
import test from 'ava';
import { type Actor, CLI_ACTOR } from '@gw/kernel';
import { waitFor, type TestKernel } from '@gw/kernel/testing';
import { type Bcoin, StatusChangeRecorder, type TestProject, stopAll } from '@gw/testing';
import { WEBHOOK_PLUGINS } from '@gw/plugin-webhooks/testing';
import { scanOnce } from '@gw/plugin-watchers/testing';
import type { PlanStatusChange } from '../src/index.js';
import type { PayoutPlanRequest } from '../src/services/payout-planner.js';
import { paidInvoice as paidInvoiceOf, payoutObserverProbe, signOffline, startBcoinTreasury, treasuryApi, treasuryOperator } from './treasury-helpers.js';

const FEE_RATE = 2n;

/** What the observer saw of each change: the plan's status inside the change's transaction and outside it; it throws on a change to `failOn`. */
const observed = new StatusChangeRecorder<PlanStatusChange>('treasury_plans', (change) => change.planId);
const observerPlugin = payoutObserverProbe((trx, change, db) => observed.record(trx, change, db));

let node: Bcoin;
let gw: TestKernel;
let project: TestProject;
let token: string;
const ACTOR: Actor = CLI_ACTOR;

test.before(async () => {
  ({ node, gw } = await startBcoinTreasury({ plugins: [...WEBHOOK_PLUGINS, observerPlugin], poolSize: 10, feeRate: FEE_RATE }));
  ({ project, token } = await treasuryOperator(gw, 'treasury-payout', 'btc'));
});
test.after.always(() => stopAll(gw, node));

const api = treasuryApi(
  () => gw,
  () => token,
);
const scan = () => scanOnce(gw, 'btc', 'regtest');

async function nodeAddress(): Promise<string> {
  return (await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;
}

/** Plans in a transaction of its own, as the payouts plugin does in the transaction that batches its items. */
async function plan(request: Partial<PayoutPlanRequest> & Pick<PayoutPlanRequest, 'recipients'>) {
  return gw.kernel.cradle.db.transaction((trx) =>
    gw.kernel.cradle.treasuryPayouts.plan(
      trx,
      { projectId: project.projectId, chain: 'btc', network: 'regtest', coin: 'btc', source: { kind: 'received' }, ...request },
      ACTOR,
    ),
  );
}

const changesOf = (planId: string) => observed.seen.filter((s) => s.change.planId === planId);

let recipients: { reference: string; address: string; units: bigint }[] = [];
let planId: string;

test.serial('a payout plan pays two external recipients from the oldest received outputs, with the change to the project’s own change chain', async (t) => {
  for (let i = 0; i < 3; i++) await paidInvoiceOf(gw, project, 'btc', 1_000_000n, (address, sats) => node.send(address, sats));
  await node.mine(6);
  await scan();
  recipients = [
    { reference: 'payout-a', address: await nodeAddress(), units: 600_000n },
    { reference: 'refund-b', address: await nodeAddress(), units: 500_000n },
  ];
  const result = await plan({ recipients });
  planId = result.planId;
  t.is(result.status, 'awaiting_signature');

  const view = (await api('GET', `/api/v1/treasury/plans/${planId}`)).body;
  t.like(view, { kind: 'payout', status: 'awaiting_signature', destination_kind: 'own', fee_units: result.feeUnits.toString() });
  t.is(view.inputs.length, 2, 'two outputs of 0.01 cover 0.011 and the fee; the third stays free');
  t.deepEqual(view.recipients, [
    { reference: 'payout-a', address: recipients[0]!.address, units: '600000' },
    { reference: 'refund-b', address: recipients[1]!.address, units: '500000' },
  ]);
  const outputs = view.plan_file.outputs;
  t.is(view.plan_file.kind, 'payout');
  t.deepEqual(outputs.slice(0, 2), [
    { address: recipients[0]!.address, amount_units: '600000', destination: { kind: 'external' } },
    { address: recipients[1]!.address, amount_units: '500000', destination: { kind: 'external' } },
  ]);
  t.like(outputs[2], { address: view.destination, destination: { kind: 'own' } });
  t.is(BigInt(outputs[2].amount_units), 2_000_000n - 1_100_000n - result.feeUnits);

  // Creation: told inside the creating transaction (nothing committed yet), every recipient pending.
  const [created] = changesOf(planId);
  t.like(created, { inside: 'awaiting_signature', outside: undefined });
  t.like(created!.change, { kind: 'payout', previousStatus: 'awaiting_signature', status: 'awaiting_signature', chain: 'btc', network: 'regtest' });
  t.deepEqual(created!.change.recipients, [
    { reference: 'payout-a', txid: null, outcome: 'pending' },
    { reference: 'refund-b', txid: null, outcome: 'pending' },
  ]);
});

test.serial('a payout the source cannot cover is refused, and one from an address whose outputs another plan holds', async (t) => {
  const before = observed.seen.length;
  const tooMuch = await t.throwsAsync(plan({ recipients: [{ reference: 'big', address: recipients[0]!.address, units: 5_000_000n }] }));
  t.is((tooMuch as { code?: string }).code, 'treasury_insufficient_value');

  const view = (await api('GET', `/api/v1/treasury/plans/${planId}`)).body;
  const heldAddress = view.inputs[0].address as string;
  const held = await t.throwsAsync(
    plan({ recipients: [{ reference: 'h', address: recipients[0]!.address, units: 10_000n }], source: { kind: 'address', address: heldAddress } }),
  );
  t.is((held as { code?: string }).code, 'treasury_outputs_planned');
  t.like((held as { details?: object }).details, { plan_id: planId });

  const wrong = await t.throwsAsync(plan({ recipients: [{ reference: 'w', address: 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', units: 10_000n }] }));
  t.is((wrong as { code?: string }).code, 'treasury_wrong_network');
  t.is(observed.seen.length, before, 'nothing was planned, so no observer heard of it');
  t.is((await api('GET', '/api/v1/treasury/plans?status=awaiting_signature')).body.plans.length, 1);
});

test.serial(
  'gateway-signer signs it; an observer that throws rolls the import back; signed, broadcast and confirmed reach the observer in their transactions',
  async (t) => {
    const view = (await api('GET', `/api/v1/treasury/plans/${planId}`)).body;
    const { signed, review } = await signOffline(view.plan_file);
    t.regex(review, /\(payout\)/);
    t.is(review.match(/EXTERNAL/g)?.length, 2);
    t.regex(review, /OWN at m\/84'\/1'\/0'\/1\//);

    observed.failOn = 'signed';
    const refused = await t.throwsAsync(gw.kernel.cradle.treasurySignedImport.import({ planId, text: signed }, {}, ACTOR));
    t.regex(refused!.message, /observer refuses signed/);
    observed.failOn = null;
    t.is((await api('GET', `/api/v1/treasury/plans/${planId}`)).body.status, 'awaiting_signature', 'the throw rolled the signature back');

    const imported = await api('POST', `/api/v1/treasury/plans/${planId}/signed`, { signed });
    t.is(imported.status, 200, JSON.stringify(imported.body));
    t.is(imported.body.status, 'signed');
    const sent = await api('POST', `/api/v1/treasury/plans/${planId}/broadcast`);
    t.is(sent.body.status, 'broadcast', JSON.stringify(sent.body));
    await waitFor(async () => (await node.mempool()).includes(view.txid), 20_000);
    await node.mine(6);
    await scan();
    t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).confirmed, [planId]);

    const tx = await node.rpc<{ vout: { value: number; n: number; scriptPubKey: { address?: string; addresses?: string[] } }[] }>('getrawtransaction', [
      view.txid,
      1,
    ]);
    const paid = (address: string) =>
      tx.vout.filter((o) => (o.scriptPubKey.address ?? o.scriptPubKey.addresses?.[0]) === address).map((o) => BigInt(Math.round(o.value * 1e8)));
    t.deepEqual(paid(recipients[0]!.address), [600_000n]);
    t.deepEqual(paid(recipients[1]!.address), [500_000n]);

    const changes = changesOf(planId).map((s) => ({ from: s.change.previousStatus, to: s.change.status, inside: s.inside, outside: s.outside }));
    t.deepEqual(changes, [
      { from: 'awaiting_signature', to: 'awaiting_signature', inside: 'awaiting_signature', outside: undefined },
      { from: 'awaiting_signature', to: 'signed', inside: 'signed', outside: 'awaiting_signature' },
      { from: 'signed', to: 'broadcast', inside: 'broadcast', outside: 'signed' },
      { from: 'broadcast', to: 'confirmed', inside: 'confirmed', outside: 'broadcast' },
    ]);
    const last = changesOf(planId).at(-1)!.change;
    t.deepEqual(last.recipients, [
      { reference: 'payout-a', txid: view.txid, outcome: 'confirmed' },
      { reference: 'refund-b', txid: view.txid, outcome: 'confirmed' },
    ]);
    t.is(changesOf(planId)[2]!.change.recipients![0]!.outcome, 'pending');

    // The accounting export: the payout with what its recipients received.
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const moved = (await api('GET', `/api/v1/treasury/moved-out?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)).body.rows;
    t.like(
      moved.find((r: { plan_id: string }) => r.plan_id === planId),
      { kind: 'payout', project_id: project.projectId, value_units: '2000000', paid_units: '1100000', fee_units: view.fee_units },
    );
  },
);

test.serial('a cancelled payout plan frees its outputs and the observer hears it; the change’s third output pays a new payout', async (t) => {
  const result = await plan({ recipients: [{ reference: 'c', address: recipients[0]!.address, units: 100_000n }] });
  const cancelled = await api('POST', `/api/v1/treasury/plans/${result.planId}/cancel`);
  t.is(cancelled.body.status, 'cancelled');
  t.deepEqual(
    changesOf(result.planId).map((s) => [s.change.previousStatus, s.change.status, s.inside, s.outside]),
    [
      ['awaiting_signature', 'awaiting_signature', 'awaiting_signature', undefined],
      ['awaiting_signature', 'cancelled', 'cancelled', 'awaiting_signature'],
    ],
  );
  const again = await plan({ recipients: [{ reference: 'c2', address: recipients[0]!.address, units: 100_000n }] });
  t.is(again.status, 'awaiting_signature');
});

test.serial(
  'a signed payout cannot be cancelled; a bump beaten by the original, which confirmed first, names it and repeats its status to observers',
  async (t) => {
    for (let i = 0; i < 2; i++) await paidInvoiceOf(gw, project, 'btc', 1_000_000n, (address, sats) => node.send(address, sats));
    await node.mine(6);
    await scan();
    const original = await plan({ recipients: [{ reference: 'rbf-1', address: recipients[0]!.address, units: 300_000n }] });
    const view = (await api('GET', `/api/v1/treasury/plans/${original.planId}`)).body;
    t.is((await api('POST', `/api/v1/treasury/plans/${original.planId}/signed`, { signed: (await signOffline(view.plan_file)).signed })).status, 200);
    const refusedCancel = await api('POST', `/api/v1/treasury/plans/${original.planId}/cancel`);
    t.is(refusedCancel.status, 409);
    t.is(refusedCancel.body.error_code, 'treasury_plan_not_cancellable');
    t.regex(refusedCancel.body.message, /Broadcast it, or spend one of its inputs/);
    t.is((await api('POST', `/api/v1/treasury/plans/${original.planId}/broadcast`)).body.status, 'broadcast');
    await waitFor(async () => (await node.mempool()).includes(view.txid), 20_000);

    // A bump, never signed; the original confirms before the watchers see its input spent.
    const bump = await api('POST', `/api/v1/treasury/plans/${original.planId}/bump`, { fee_rate: '10' });
    t.is(bump.status, 201, JSON.stringify(bump.body));
    t.like(bump.body, { kind: 'payout', replaces_plan_id: original.planId });
    await node.mine(6);
    const first = await gw.kernel.cradle.treasuryTracker.track();
    t.deepEqual(first.confirmed, [original.planId]);
    t.deepEqual(first.invalidated, []);
    await scan();
    t.deepEqual((await gw.kernel.cradle.treasuryTracker.track()).invalidated, [bump.body.id]);
    const [invalidated, repeated] = observed.seen.slice(-2).map((s) => s.change);
    t.like(invalidated, { planId: bump.body.id, status: 'invalidated', replacedBy: original.planId });
    t.like(repeated, { planId: original.planId, previousStatus: 'confirmed', status: 'confirmed' });
    t.is(repeated!.recipients![0]!.outcome, 'confirmed');
  },
);

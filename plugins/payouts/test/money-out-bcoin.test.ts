/**
 * The books on a real Bitcoin node (bcoin 1.0.2, regtest): two paid invoices (money in), a sweep of
 * their outputs to an external address planned by the treasury, signed offline by
 * `gateway-signer`, broadcast and confirmed; then an overpaid invoice's refund and a payout,
 * approved at the CLI and paid by one batch plan (signed, broadcast, confirmed the same way). The
 * money-out export lists the sweep, the refund, the payout, the plan's change to the project's own
 * address and each plan's network fee, and the project's books balance after each: received = held
 * + moved out + fees.
 */
import test from 'ava';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import { cliApprover } from '../src/contract.js';
import type { TestKernel } from '@gw/kernel/testing';
import { SANDBOX_PLUGINS } from '@gw/plugin-sandbox/testing';
import { confirmOnBcoin, paidInvoice, startBcoinTreasury } from '@gw/plugin-treasury/testing';
import { scanOnce } from '@gw/plugin-watchers/testing';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { activeUser, type Bcoin, projectWithPools, type TestProject } from '@gw/testing';
import { payoutsPlugin } from '../src/index.js';

let node: Bcoin;
let gw: TestKernel;
let project: TestProject;
/** Before the first payment: the books of both tests together. */
const start = new Date(Date.now() - 60_000);

test.before(async () => {
  ({ node, gw } = await startBcoinTreasury({ plugins: [...SANDBOX_PLUGINS, checkoutPlugin, oauthPlugin, payoutsPlugin], poolSize: 5, feeRate: 2n }));
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('books-bcoin', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['btc' as ChainId], 'testnet');
});
test.after.always(async () => {
  await gw?.close();
  await node?.stop();
});

test.serial('a confirmed sweep is money out with its network fee, and received = held + moved out + fees', async (t) => {
  const from = start;
  for (const sats of [1_000_000n, 2_500_000n]) await paidInvoice(gw, project, 'btc', sats, (address, units) => node.send(address, units));
  await node.mine(6);
  await scanOnce(gw, 'btc', 'regtest');

  const cradle = gw.kernel.cradle;
  const destination = (await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;
  const plan = await cradle.treasuryPlans.sweep(
    { chain: 'btc', network: 'regtest', select: { projectId: project.projectId }, destination: { kind: 'external', address: destination } },
    {},
    CLI_ACTOR,
  );
  const { sent, confirmed } = await confirmOnBcoin(gw, node, plan);
  t.deepEqual(confirmed, [plan.id]);

  const range = { projectId: project.projectId, from, to: new Date(Date.now() + 3_600_000) };
  const rows = await cradle.payoutsMoneyOut.rows(range);
  const fee = BigInt(plan.fee_units!);
  t.deepEqual(
    rows.map((r) => [r.kind, r.coin, r.amount_units, r.plan_id, r.txid, r.item_id]),
    [
      ['sweep', 'btc', (3_500_000n - fee).toString(), plan.id, sent.txid, null],
      ['network_fee', 'btc', fee.toString(), plan.id, sent.txid, null],
    ],
  );

  const books = await cradle.payoutsMoneyOut.books(range);
  t.deepEqual(books.money_in, [{ kind: 'received', chain: 'btc', coin: 'btc', amount: '0.035', amount_units: '3500000' }]);
  const out = (kind: string) => BigInt(books.money_out.find((m) => m.kind === kind)?.amount_units ?? '0');
  const held = (await cradle.treasuryBalances.balances({ groupBy: 'project', projectId: project.projectId, limit: 10 }, {})).rows.reduce(
    (sum, r) => sum + BigInt(r.confirmed_units) + BigInt(r.unconfirmed_units),
    0n,
  );
  t.true(fee > 0n);
  t.is(out('network_fee'), fee);
  t.is(held, 0n, 'the sweep took every output');
  t.is(BigInt(books.money_in[0]!.amount_units), held + out('refund') + out('payout') + out('sweep') + out('network_fee'), 'received = held + moved out + fees');
});

test.serial(
  'a refund and a payout paid by one batch plan are money out with its transaction; the plan’s fee is a network fee; the books balance',
  async (t) => {
    const cradle = gw.kernel.cradle;
    const address = async () => (await node.wallet<{ address: string }>('POST', '/wallet/primary/address', { account: 'default' })).address;
    // Paid twice over: the refund's natural amount is the excess, 1 000 000 sat.
    const invoice = await paidInvoice(gw, project, 'btc', 2_000_000n, (to, units) => node.send(to, units));
    await node.mine(6);
    await scanOnce(gw, 'btc', 'regtest');
    const partner = { actor: 'api_key:test', channel: 'rest' as const };
    const refund = (
      await cradle.payoutsItems.createRefund({ projectId: project.projectId, invoiceId: invoice.id, amount: '0.01', address: await address() }, partner)
    ).item;
    const [payout] = (
      await cradle.payoutsItems.createPayouts(project.projectId, [{ address: await address(), coin: 'btc', amount: '0.003', reference: 'aff-1' }], partner)
    ).items;
    const operatorId = (await cradle.tenancyProjects.get(project.projectId)).operator_id;
    const admin = await activeUser(gw, { email: 'books-admin@example.com', operator: operatorId, role: 'admin' });
    const approver = await cliApprover(cradle.tenancyUsers, admin.email);
    for (const id of [refund.id, payout!.id]) await cradle.payoutsApprovals.approve(id, approver, {});
    const batch = await cradle.payoutsBatches.create(
      { projectId: project.projectId, chain: 'btc', network: 'regtest', coin: 'btc', source: { kind: 'received' } },
      CLI_ACTOR,
      {},
    );
    const plan = await cradle.treasuryPlans.get(batch.planId, {});
    const { sent, confirmed } = await confirmOnBcoin(gw, node, plan);
    t.deepEqual(confirmed, [plan.id]);
    t.is((await cradle.payoutsItems.get(project.projectId, 'refund', refund.id)).status, 'completed');

    // Block times of regtest run ahead of the clock: the period is the file's, both plans in it.
    const range = { projectId: project.projectId, from: start, to: new Date(Date.now() + 3_600_000) };
    const rows = (await cradle.payoutsMoneyOut.rows(range)).filter((r) => r.plan_id === plan.id);
    const fee = BigInt((await cradle.treasuryPlans.get(plan.id, {})).fee_units!);
    t.deepEqual(
      rows.map((r) => [r.kind, r.amount_units, r.item_id, r.plan_id, r.txid]).sort(),
      [
        ['network_fee', fee.toString(), null, plan.id, sent.txid],
        ['payout', '300000', payout!.id, plan.id, sent.txid],
        ['refund', '1000000', refund.id, plan.id, sent.txid],
        // The change of the received output, to the project's own change address.
        ['sweep', (2_000_000n - 1_300_000n - fee).toString(), null, plan.id, sent.txid],
      ].sort(),
      'the items, the change and the fee',
    );
    const books = await cradle.payoutsMoneyOut.books(range);
    const out = (kind: string) => BigInt(books.money_out.find((m) => m.kind === kind)?.amount_units ?? '0');
    const held = (await cradle.treasuryBalances.balances({ groupBy: 'project', projectId: project.projectId, limit: 10 }, {})).rows.reduce(
      (sum, r) => sum + BigInt(r.confirmed_units) + BigInt(r.unconfirmed_units),
      0n,
    );
    t.is(BigInt(books.money_in[0]!.amount_units), 3_500_000n + 2_000_000n);
    t.is(BigInt(books.money_in[0]!.amount_units), held + out('refund') + out('payout') + out('sweep') + out('network_fee'), `held ${held}, fee ${fee}`);
  },
);

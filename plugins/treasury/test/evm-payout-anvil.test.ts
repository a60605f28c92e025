/**
 * Account-chain payout plans through the treasury's planner (issue 37) on anvil: `treasuryPayouts`
 * builds a plan of kind `payout` (method `payout`, one transfer per recipient) from the operator's
 * funding account, stored in the caller's transaction; `gateway-signer` signs its file with the
 * test mnemonic (the funding key at its path), the gateway verifies, broadcasts and tracks it, and
 * every recipient is paid exactly. A pool address in an open plan is refused as a source.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { EvmTreasuryChain, TREASURY_TEST_MNEMONIC, stopAll } from '@gw/testing';
import { HDNodeWallet, Mnemonic } from 'ethers';
import type { PlanStatusChange } from '../src/index.js';
import type { PayoutPlanRequest } from '../src/services/payout-planner.js';
import { startAnvilTreasury, trackUntilConfirmed, type AnvilTreasury } from './anvil-treasury.js';
import { payoutObserverProbe, signOffline, treasuryApi } from './treasury-helpers.js';

const FUNDING_PATH = "m/44'/60'/2'/0/0";
const ACCOUNTS = '/api/v1/treasury/accounts';
let ctx: AnvilTreasury;
let funding: string;

/** Every change of a payout plan, as a plan observer hears it. */
const heard: PlanStatusChange[] = [];
const observerPlugin = payoutObserverProbe(async (_trx, change) => void heard.push(change));

test.before(async () => {
  funding = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(TREASURY_TEST_MNEMONIC).computeSeed()).derivePath(FUNDING_PATH).address;
  ctx = await startAnvilTreasury({
    operator: 'treasury-evm-payout',
    poolSize: 4,
    plugins: [observerPlugin],
    network: (chain) => ({
      operatorAccounts: {
        gas: { address: chain.gasAccount.address, path: chain.gasAccount.path },
        funding: { address: funding, path: FUNDING_PATH },
      },
    }),
  });
  await ctx.chain.anvil.sendEth(ctx.chain.funder, funding, 10n ** 18n);
});
test.after.always(() => stopAll(ctx?.gw, ctx?.chain));

const api = treasuryApi(
  () => ctx.gw,
  () => ctx.token,
);

function plan(request: Pick<PayoutPlanRequest, 'recipients' | 'source'>) {
  return ctx.gw.kernel.cradle.db.transaction((trx) =>
    ctx.gw.kernel.cradle.treasuryPayouts.plan(trx, { projectId: ctx.project.projectId, chain: 'eth', network: 'anvil', coin: 'eth', ...request }, CLI_ACTOR),
  );
}

test.serial('an ETH payout to two recipients from the funding account: planned, signed by gateway-signer, broadcast, confirmed, paid exactly', async (t) => {
  const recipients = [
    { reference: 'po-1', address: EvmTreasuryChain.freshAddress(), units: 10n ** 16n },
    { reference: 'rf-2', address: EvmTreasuryChain.freshAddress(), units: 3n * 10n ** 15n },
  ];
  const result = await plan({ recipients, source: { kind: 'funding' } });
  t.is(result.status, 'awaiting_signature');
  const view = (await api('GET', `${ACCOUNTS}/plans/${result.planId}`)).body;
  t.like(view, { kind: 'payout', method: 'payout', coin: 'eth', fee_units: result.feeUnits.toString(), addresses: [] });
  t.deepEqual(
    view.recipients,
    recipients.map((r) => ({ reference: r.reference, address: r.address, units: r.units.toString() })),
  );
  t.true(view.steps.every((s: { signer: { role: string } }) => s.signer.role === 'funding'));

  const file = (await api('GET', `${ACCOUNTS}/plans/${result.planId}/file`)).body;
  const { signed } = await signOffline(file);
  t.is((await api('POST', `${ACCOUNTS}/plans/${result.planId}/signed`, { signed })).body.status, 'signed');
  t.is((await api('POST', `${ACCOUNTS}/plans/${result.planId}/broadcast`)).body.status, 'broadcast');
  const done = await trackUntilConfirmed(ctx.gw, ctx.chain, api, result.planId);
  t.is(done.status, 'confirmed');
  for (const r of recipients) t.is(await ctx.chain.ethBalance(r.address), r.units);

  // The export names the project of a payout from the funding account (it holds no pool address).
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  const rows = (await api('GET', `/api/v1/treasury/moved-out?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`)).body.rows;
  t.like(
    rows.find((r: { plan_id: string }) => r.plan_id === result.planId),
    { kind: 'payout', method: 'payout', project_id: ctx.project.projectId, paid_units: (13n * 10n ** 15n).toString() },
  );
});

test.serial('a source that is no pool address of the project, and the received-outputs source, are refused on an account chain', async (t) => {
  const recipients = [{ reference: 'x', address: EvmTreasuryChain.freshAddress(), units: 1n }];
  const stranger = await t.throwsAsync(plan({ recipients, source: { kind: 'address', address: EvmTreasuryChain.freshAddress() } }));
  t.is((stranger as { code?: string }).code, 'treasury_nothing_to_move');
  const received = await t.throwsAsync(plan({ recipients, source: { kind: 'received' } }));
  t.is((received as { code?: string }).code, 'treasury_nothing_to_move');
});

test.serial('a plan refused at its second transfer fails; the first, already sent, is followed and its confirmation is told to observers again', async (t) => {
  const recipients = [
    { reference: 'ok-1', address: EvmTreasuryChain.freshAddress(), units: 10n ** 15n },
    { reference: 'no-2', address: EvmTreasuryChain.freshAddress(), units: 5n * 10n ** 16n },
  ];
  const result = await plan({ recipients, source: { kind: 'funding' } });
  const file = (await api('GET', `${ACCOUNTS}/plans/${result.planId}/file`)).body;
  t.is((await api('POST', `${ACCOUNTS}/plans/${result.planId}/signed`, { signed: (await signOffline(file)).signed })).body.status, 'signed');
  // Enough for the first transfer and its gas, not for the second: the node refuses it.
  await ctx.chain.setBalances([{ address: funding, eth: 10n ** 15n + 10n ** 16n }]);
  const refused = await api('POST', `${ACCOUNTS}/plans/${result.planId}/broadcast`);
  t.is(refused.body.error_code, 'treasury_broadcast_rejected', JSON.stringify(refused.body));
  const failed = heard.filter((c) => c.planId === result.planId).at(-1)!;
  t.like(failed, { status: 'failed' });
  t.is(failed.recipients![0]!.outcome, 'pending', 'the first transfer went out');
  t.truthy(failed.recipients![0]!.txid);
  t.is(failed.recipients![1]!.outcome, 'failed');

  const last = () => heard.filter((c) => c.planId === result.planId).at(-1)!;
  for (let i = 0; i < 5 && last() === failed; i++) {
    await ctx.chain.anvil.mine(1);
    await ctx.gw.kernel.cradle.treasuryAccountBroadcaster.track();
  }
  const again = last();
  t.not(again, failed, 'the observers heard the plan again');
  t.like(again, { previousStatus: 'failed', status: 'failed' });
  t.deepEqual(
    again.recipients!.map((r) => r.outcome),
    ['confirmed', 'failed'],
  );
  t.is(await ctx.chain.ethBalance(recipients[0]!.address), recipients[0]!.units);
});

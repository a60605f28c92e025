/**
 * A USDC payout to three recipients through the gateway on a real EVM node (issue 37, "Tests with
 * real parts: anvil"): proposed over the signed partner API, approved by an administrator (the
 * operator CLI), batched from the operator's `funding` account into a treasury payout plan (one
 * EIP-3009 token transfer per recipient), signed offline by `gateway-signer`, imported, broadcast
 * and tracked to its confirmation; the recipients' balances are read on chain.
 *
 * The node: anvil with the test token `usdc` (packages/testing's EIP-3009 token, 6 decimals) on
 * the chain definition of `EvmTreasuryChain`, watched as eth/anvil; the gateway: the shipped
 * composition's plugins.
 */
import test from 'ava';
import { HDNodeWallet, Mnemonic } from 'ethers';
import { chains as shippedChains, plugins } from '@gw/app-gateway';
import { defineChain } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { createEvmAdapter } from '@gw/chain-evm';
import { activeUser, cliRunner, EvmTreasuryChain, FAST_RETRIES, FIXED_RATES, Receiver, TREASURY_TEST_MNEMONIC, type TestProject, stopAll } from '@gw/testing';
import { approveAndBatch, expectPayoutsCompleted } from '@gw/plugin-payouts/testing';
import { signOffline, treasuryApi, treasuryOperator } from '@gw/plugin-treasury/testing';

const FUNDING_PATH = "m/44'/60'/2'/0/0";
const USDC = 10n ** 6n;
const ADMIN = 'payouts-admin@example.test';
const ACCOUNTS = '/api/v1/treasury/accounts';

let chain: EvmTreasuryChain;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;
let token: string;
let funding: { address: string; path: string };
let cli: ReturnType<typeof cliRunner>;

test.before(async () => {
  chain = await EvmTreasuryChain.start();
  funding = { address: HDNodeWallet.fromSeed(Mnemonic.fromPhrase(TREASURY_TEST_MNEMONIC).computeSeed()).derivePath(FUNDING_PATH).address, path: FUNDING_PATH };
  // The operator funds its funding account: ETH for the gas, USDC to pay out.
  await chain.anvil.sendEth(chain.funder, funding.address, 10n ** 18n);
  await chain.anvil.sendToken(chain.contracts.eip3009, chain.funder, funding.address, 1_000n * USDC);
  receiver = await Receiver.start();
  const config = {
    'chains.testNetworks': { eth: 'anvil' },
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': FIXED_RATES,
    'plugins.watchers.chains': {
      eth: { anvil: { providers: [{ name: 'anvil', url: chain.anvil.url }], startHeight: (await chain.anvil.blockNumber()) + 1 } },
    },
    'plugins.address-pool.targetFree': 3,
    'plugins.address-pool.hardCap': 3,
    'plugins.watchers.scanIntervalSeconds': 3600,
    ...FAST_RETRIES,
    'plugins.treasury.trackCron': '0 0 1 1 *',
    'plugins.treasury.reconcileCron': '0 0 1 1 *',
    'plugins.treasury.networks': { eth: { anvil: { operatorAccounts: { gas: { address: chain.gasAccount.address, path: chain.gasAccount.path }, funding } } } },
    'plugins.webhooks.allowPrivateTargets': true,
  };
  // The shipped chains with eth replaced by the anvil chain that knows the test token.
  const chains = [...shippedChains.filter((c) => c.definition.id !== 'eth'), defineChain({ definition: chain.definition, createAdapter: createEvmAdapter })];
  gw = await startTestKernel({ plugins, chains, role: 'all', config });
  cli = cliRunner({ plugins, chains, databaseUrl: () => gw.database.url, overrides: () => config });
  let operatorId: string;
  ({ operatorId, project, token } = await treasuryOperator(gw, 'payouts-anvil', 'eth'));
  // The CLI approves as a named active administrator (`--as`).
  await activeUser(gw, { email: ADMIN, role: 'admin', operator: operatorId });
  const hook = await cli('webhook', 'set', '--project', project.projectId, '--url', `${receiver.url}/hooks`, '--json');
  if (hook.code !== 0) throw new Error(hook.stdout + hook.stderr);
});
test.after.always(() => stopAll(gw, chain, receiver));

const api = treasuryApi(
  () => gw,
  () => token,
);

test('a USDC payout to three recipients: proposed over the API, approved, batched from the funding account, signed offline, broadcast, confirmed, paid on chain', async (t) => {
  const recipients = [
    { address: EvmTreasuryChain.freshAddress(), coin: 'usdc', amount: '125', reference: 'seller-1' },
    { address: EvmTreasuryChain.freshAddress(), coin: 'usdc', amount: '2.34', reference: 'seller-2' },
    { address: EvmTreasuryChain.freshAddress(), coin: 'usdc', amount: '0.000001', reference: 'affiliate-3' },
  ];
  const units = [125n * USDC, 2_340_000n, 1n];
  const created = await signedFetch(gw.url, '/api/v1/payouts', { ...project, method: 'POST', body: { recipients } });
  t.is(created.status, 201, JSON.stringify(created.body));
  const items: any[] = created.body.items;
  t.deepEqual(
    items.map((i) => [i.object, i.status, i.chain, i.network, i.coin, i.address, i.amount_units]),
    recipients.map((r, i) => ['payout', 'pending_approval', 'eth', 'anvil', 'usdc', r.address, units[i]!.toString()]),
  );

  const batch = await approveAndBatch(t, cli, ADMIN, items, { projectId: project.projectId, chain: 'eth', network: 'anvil', coin: 'usdc', source: 'funding' });
  const planId: string = batch.json.plan_id;
  t.deepEqual(batch.json.items.map((i: { id: string; status: string }) => `${i.id} ${i.status}`).sort(), items.map((i) => `${i.id} batched`).sort());

  const plan = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
  t.like(plan, { kind: 'payout', method: 'payout', coin: 'usdc', status: 'awaiting_signature' }, JSON.stringify(plan));
  const file = (await api('GET', `${ACCOUNTS}/plans/${planId}/file`)).body;
  // The test token is no issuer's: the signer refuses it unless told (as an operator would be).
  const { signed, review } = await signOffline(file, { allowUnlistedTokens: [chain.contracts.eip3009] });
  t.true(review.includes('Payout to 3 recipients'), review);
  for (const r of recipients) t.true(review.includes(r.address), `the signer shows ${r.address}`);
  t.true(review.includes(FUNDING_PATH), 'signed with the funding account’s key');

  const imported = await api('POST', `${ACCOUNTS}/plans/${planId}/signed`, { signed });
  t.is(imported.status, 200, JSON.stringify(imported.body));
  t.is(imported.body.status, 'signed');
  t.is((await api('POST', `${ACCOUNTS}/plans/${planId}/broadcast`)).status, 200);
  let confirmed: any;
  for (let i = 0; i < 10 && confirmed?.status !== 'confirmed'; i++) {
    await gw.kernel.cradle.treasuryAccountBroadcaster.track();
    confirmed = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
    if (confirmed.status === 'broadcast') await chain.anvil.mine(1);
  }
  t.is(confirmed.status, 'confirmed', JSON.stringify(confirmed));

  for (const [i, r] of recipients.entries()) t.is(await chain.balanceOf(chain.contracts.eip3009, r.address), units[i]!);
  t.is(await chain.balanceOf(chain.contracts.eip3009, funding.address), 1_000n * USDC - (125n * USDC + 2_340_000n + 1n));
  await expectPayoutsCompleted(t, gw, project, items, planId, receiver);
});

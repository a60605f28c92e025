/**
 * A USDC payout on Solana through the gateway (issue 43), as e2e/refunds-payouts-anvil.test.ts does
 * on EVM: proposed over the signed partner API, approved by an administrator (the operator CLI),
 * batched from the operator's `funding` account (the test mnemonic's Solana account 0) into a
 * treasury payout plan (one `TransferChecked` per recipient, the recipient's token account created
 * in the same transaction), signed offline by the `gateway-signer` command, imported, broadcast and
 * tracked to `finalized`; the recipients' balances are read on chain.
 *
 * The node: chains/sol's litesvm ledger (test/litesvm-rpc.ts) watched as sol/localnet, with an SPL
 * mint at Circle's devnet USDC address; the gateway: the shipped composition with `sol` enabled.
 */
import test from 'ava';
import { chains, plugins } from '@gw/app-gateway';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
import { ata, freshAddress, fundedSigner, installMint, LAMPORTS_PER_SOL, LiteSvmLedger, mintTo } from '@gw/chain-sol/testing';
import { activeUser, cliRunner, FAST_RETRIES, FIXED_RATES, projectWithPools, Receiver, stopAll, type TestProject } from '@gw/testing';
import { approveAndBatch, expectPayoutsCompleted } from '@gw/plugin-payouts/testing';
import { signOffline, treasuryApi } from '@gw/plugin-treasury/testing';

const USDC = '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU';
/** The test mnemonic ("abandon" × 11, "about") at m/44'/501'/0'/0', as Phantom shows it (packages/signer/test/payout-e2e-sol.test.ts derives it). */
const FUNDING = { address: 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk', path: "m/44'/501'/0'/0'" };
const ADMIN = 'payouts-admin@example.test';
const ACCOUNTS = '/api/v1/treasury/accounts';

let ledger: LiteSvmLedger;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;
let token: string;
let cli: ReturnType<typeof cliRunner>;

test.before(async () => {
  ledger = await LiteSvmLedger.start();
  // The operator funds its funding account: SOL for fees and token-account rent, USDC to pay out.
  ledger.svm.airdrop(FUNDING.address as never, (2n * LAMPORTS_PER_SOL) as never);
  const mintAuthority = await fundedSigner(ledger);
  installMint(ledger, USDC, mintAuthority.address, 6);
  await mintTo(ledger, mintAuthority, USDC, FUNDING.address, 1_000_000_000n);
  ledger.finalize();
  receiver = await Receiver.start();
  const config = {
    'chains.enabled': ['eth', 'sol'],
    'chains.testNetworks': { sol: 'localnet' },
    'plugins.rates.providers': ['fixed'],
    'plugins.rates.fixed': FIXED_RATES,
    'plugins.watchers.chains': { sol: { localnet: { providers: [{ name: 'litesvm', url: ledger.url }], startHeight: 0 } } },
    'plugins.watchers.scanIntervalSeconds': 3600,
    ...FAST_RETRIES,
    'plugins.treasury.trackCron': '0 0 1 1 *',
    'plugins.treasury.reconcileCron': '0 0 1 1 *',
    'plugins.treasury.networks': { sol: { localnet: { operatorAccounts: { funding: FUNDING } } } },
    'plugins.webhooks.allowPrivateTargets': true,
  };
  gw = await startTestKernel({ plugins, chains, role: 'all', config });
  cli = cliRunner({ plugins, chains, databaseUrl: () => gw.database.url, overrides: () => config });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('payouts-sol', CLI_ACTOR)).id;
  // Payouts from the funding account need no wallet of the project on the chain.
  project = await projectWithPools(gw, operatorId, [], 'testnet');
  token = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: operatorId }, CLI_ACTOR)).token;
  await activeUser(gw, { email: ADMIN, role: 'admin', operator: operatorId });
  const hook = await cli('webhook', 'set', '--project', project.projectId, '--url', `${receiver.url}/hooks`, '--json');
  if (hook.code !== 0) throw new Error(hook.stdout + hook.stderr);
});
test.after.always(async () => {
  await stopAll(gw, receiver);
  await ledger?.close();
});

const api = treasuryApi(
  () => gw,
  () => token,
);

test('a USDC payout to two recipients on Solana: proposed, approved, batched from the funding account, signed offline, broadcast, finalized, paid', async (t) => {
  const recipients = [
    { address: await freshAddress(), coin: 'usdc_sol', amount: '12.5', reference: 'seller-1' },
    { address: await freshAddress(), coin: 'usdc_sol', amount: '0.000001', reference: 'affiliate-2' },
  ];
  const units = [12_500_000n, 1n];
  const created = await signedFetch(gw.url, '/api/v1/payouts', { ...project, method: 'POST', body: { recipients } });
  t.is(created.status, 201, JSON.stringify(created.body));
  const items: any[] = created.body.items;
  t.deepEqual(
    items.map((i) => [i.status, i.chain, i.network, i.coin, i.address, i.amount_units]),
    recipients.map((r, i) => ['pending_approval', 'sol', 'localnet', 'usdc_sol', r.address, units[i]!.toString()]),
  );
  const batch = await approveAndBatch(t, cli, ADMIN, items, {
    projectId: project.projectId,
    chain: 'sol',
    network: 'localnet',
    coin: 'usdc_sol',
    source: 'funding',
  });
  const planId: string = batch.json.plan_id;

  const plan = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
  t.like(plan, { kind: 'payout', method: 'payout', coin: 'usdc_sol', status: 'awaiting_signature' }, JSON.stringify(plan));
  const file = (await api('GET', `${ACCOUNTS}/plans/${planId}/file`)).body;
  t.true(file.steps.every((s: { unsigned: { format: string } }) => s.unsigned.format === 'sol-tx'));
  // USDC's devnet mint is in the signer's own table for localnet: no --allow-unlisted-token.
  const { signed, review } = await signOffline(file);
  t.true(review.includes('Payout to 2 recipients'), review);
  for (const r of recipients) t.true(review.includes(r.address), `the signer shows ${r.address}`);
  t.true(review.includes(FUNDING.path), review);

  const imported = await api('POST', `${ACCOUNTS}/plans/${planId}/signed`, { signed });
  t.is(imported.status, 200, JSON.stringify(imported.body));
  t.is((await api('POST', `${ACCOUNTS}/plans/${planId}/broadcast`)).status, 200);
  let confirmed: any;
  for (let i = 0; i < 10 && confirmed?.status !== 'confirmed'; i++) {
    ledger.finalize();
    await gw.kernel.cradle.treasuryAccountBroadcaster.track();
    confirmed = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
  }
  t.is(confirmed.status, 'confirmed', JSON.stringify(confirmed));

  const amountAt = async (owner: string) => {
    const account = ledger.svm.getAccount(await ata(owner, USDC));
    return account.exists ? new DataView(account.data.buffer, account.data.byteOffset).getBigUint64(64, true) : 0n;
  };
  for (const [i, r] of recipients.entries()) t.is(await amountAt(r.address), units[i]!);
  t.is(await amountAt(FUNDING.address), 1_000_000_000n - 12_500_001n);
  await expectPayoutsCompleted(t, gw, project, items, planId, receiver);
});

/**
 * Reconciliation of an account chain against its provider (issue 36) on a real EVM node (anvil,
 * @gw/testing EvmTreasuryChain) run by the gateway as eth on `anvil`: what the watchers recorded as
 * received at each pool address, less what the treasury's confirmed plans moved out, is compared
 * per coin with what the chain says the address holds (`AccountTreasury.holdings`). Invoices paid
 * and a gas top-up sweep leave no difference; a token transfer to a pool address outside any
 * invoice, sent while the watcher does not scan, shows as one (REST, CLI, metric).
 */
import test from 'ava';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { EvmTreasuryChain, type TestProject, stopAll } from '@gw/testing';
import { fileStep, gasAccountOnly, startAnvilTreasury, type AnvilTreasury } from './anvil-treasury.js';
import { treasuryApi } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

let chain: EvmTreasuryChain;
let gw: TestKernel;
let project: TestProject;
let token: string;
let cli: AnvilTreasury['cli'];
const destination = EvmTreasuryChain.freshAddress();
const ACCOUNTS = '/api/v1/treasury/accounts';
const TOK = 10n ** 18n;
let tokAddresses: string[] = [];
let ethAddress = '';

test.before(async () => {
  ({ chain, gw, project, token, cli } = await startAnvilTreasury({
    operator: 'treasury-reconcile',
    poolSize: 5,
    network: gasAccountOnly,
  }));
});
test.after.always(() => stopAll(gw, chain));

const api = treasuryApi(
  () => gw,
  () => token,
);

async function invoice(coin: 'tok' | 'eth', amount: string): Promise<string> {
  const created = await signedFetch(gw.url, '/api/v1/invoices', {
    ...project,
    method: 'POST',
    body: { external_id: `r-${Math.random().toString(36).slice(2)}`, coin, amount_crypto: amount },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.address;
}

/** One reconciliation of every network; the eth anvil run and the differences of its latest run (REST). */
async function reconcile(t: import('ava').ExecutionContext): Promise<{ run: any; differences: any[] }> {
  const runs = await gw.kernel.cradle.treasuryReconciliation.runAll();
  const run = runs.find((r) => r.chain === 'eth' && r.network === 'anvil');
  t.truthy(run, 'the account network is reconciled');
  t.is(run!.failure, null);
  const latest = await api('GET', '/api/v1/treasury/reconciliation');
  t.is(latest.status, 200, JSON.stringify(latest.body));
  return { run, differences: latest.body.differences.filter((d: any) => d.chain === 'eth' && d.network === 'anvil') };
}

test.serial('paid invoices: every pool address holds what the watchers recorded; no difference', async (t) => {
  tokAddresses = [await invoice('tok', '2'), await invoice('tok', '3')];
  ethAddress = await invoice('eth', '0.5');
  await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, tokAddresses[0]!, 2n * TOK);
  await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, tokAddresses[1]!, 3n * TOK);
  await chain.anvil.sendEth(chain.funder, ethAddress, 5n * 10n ** 17n);
  await chain.anvil.mine(2);
  await scanOnce(gw, 'eth', 'anvil');
  const { run, differences } = await reconcile(t);
  t.is(run.addresses, 3);
  t.is(run.differences, 0);
  t.deepEqual(differences, []);
});

test.serial('a gas top-up sweep: what it moved out is counted; still no difference', async (t) => {
  const created = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'gas_top_up' });
  t.is(created.status, 201, JSON.stringify(created.body));
  const file = (await api('GET', `${ACCOUNTS}/plans/${created.body.id}/file`)).body;
  const signed = JSON.stringify({
    format: 'gateway-treasury-account-signed',
    version: 1,
    plan_id: file.plan_id,
    chain: file.chain,
    network: file.network,
    round: file.round,
    signed: file.steps.map((s: any) => ({
      id: s.id,
      signed: chain.sign(fileStep(s)),
    })),
  });
  t.is((await api('POST', `${ACCOUNTS}/plans/${created.body.id}/signed`, { signed })).status, 200);
  t.is((await api('POST', `${ACCOUNTS}/plans/${created.body.id}/broadcast`)).status, 200);
  let status = '';
  for (let i = 0; i < 10 && status !== 'confirmed'; i++) {
    await gw.kernel.cradle.treasuryAccountBroadcaster.track();
    status = (await api('GET', `${ACCOUNTS}/plans/${created.body.id}`)).body.status;
    await chain.anvil.mine(1);
  }
  t.is(status, 'confirmed');
  await scanOnce(gw, 'eth', 'anvil');
  const { run, differences } = await reconcile(t);
  t.is(run.differences, 0, JSON.stringify(differences));
});

test.serial('a token transfer to a pool address the watchers did not see shows as a difference (REST, CLI, metric)', async (t) => {
  // Outside any invoice, and no scan runs: the watchers never recorded it.
  await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, ethAddress, 7n * TOK);
  await chain.anvil.mine(1);
  const { run, differences } = await reconcile(t);
  t.is(run.differences, 1, JSON.stringify(differences));
  t.is(differences.length, 1);
  t.like(differences[0], {
    address: ethAddress,
    coin: 'tok',
    kind: 'balance_differs',
    gateway_units: '0',
    provider_units: (7n * TOK).toString(),
    tx_hash: null,
  });

  const metrics = await gw.kernel.cradle.metrics.registry.metrics();
  t.regex(metrics, /gateway_treasury_reconciliation_differences\{chain="eth",network="anvil"\} 1/);

  const ran = await cli('treasury', 'reconcile', '--json');
  t.is(ran.code, 0, ran.stderr);
  t.true(ran.json.runs.some((r: any) => r.chain === 'eth' && r.differences === 1));
  t.true(ran.json.latest.differences.some((d: any) => d.address === ethAddress && d.coin === 'tok'));
});

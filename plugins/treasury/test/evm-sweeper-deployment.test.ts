/**
 * The EIP-7702 token sweeper deployed through the treasury plugin (issue 36) on a real EVM node
 * (anvil with the Prague rules, @gw/testing EvmTreasuryChain): no sweeper is configured; a
 * `sweeper_deployment` plan is built over REST, its file signed by `gateway-signer` (the signer's
 * real code, run as a process; anvil's test token allowed as unlisted), imported, broadcast and
 * confirmed; the plugin then records the sweeper for the destination, and an eip7702 sweep to that
 * destination uses it without any configuration. A recorded sweeper whose code on chain is not the
 * sweeper runtime for its destination is not used.
 */
import test from 'ava';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { EvmTreasuryChain, type TestProject, stopAll } from '@gw/testing';
import { gasAccountOnly, startAnvilTreasury, trackUntilConfirmed as trackUntil, type AnvilTreasury } from './anvil-treasury.js';
import { signOffline, treasuryApi } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

let chain: EvmTreasuryChain;
let gw: TestKernel;
let project: TestProject;
let token: string;
let cli: AnvilTreasury['cli'];
let swept7702: string[] = [];
let deployed = '';
const destination = EvmTreasuryChain.freshAddress();
const ACCOUNTS = '/api/v1/treasury/accounts';

test.before(async () => {
  ({ chain, gw, project, token, cli } = await startAnvilTreasury({
    operator: 'treasury-sweeper',
    poolSize: 5,
    // A gas account and no sweeper: the plugin deploys and records it.
    network: gasAccountOnly,
  }));
});
test.after.always(() => stopAll(gw, chain));

const api = treasuryApi(
  () => gw,
  () => token,
);

const trackUntilConfirmed = (planId: string) => trackUntil(gw, chain, api, planId);

/** Every round's file signed by gateway-signer and imported, then broadcast and tracked to the end. */
async function signAndRun(t: import('ava').ExecutionContext, planId: string): Promise<any> {
  for (let round = 0; round < 2; round++) {
    const plan = (await api('GET', `${ACCOUNTS}/plans/${planId}`)).body;
    if (plan.status !== 'awaiting_signature') break;
    const file = (await api('GET', `${ACCOUNTS}/plans/${planId}/file`)).body;
    const { signed } = await signOffline(file, { allowUnlistedTokens: [chain.contracts.erc20] });
    const imported = await api('POST', `${ACCOUNTS}/plans/${planId}/signed`, { signed });
    t.is(imported.status, 200, JSON.stringify(imported.body));
  }
  const sent = await api('POST', `${ACCOUNTS}/plans/${planId}/broadcast`);
  t.is(sent.status, 200, JSON.stringify(sent.body));
  return trackUntilConfirmed(planId);
}

test.serial('no sweeper for the destination: eip7702 is unavailable', async (t) => {
  const units = 25n * 10n ** 17n;
  for (let i = 0; i < 2; i++) {
    const created = await signedFetch(gw.url, '/api/v1/invoices', {
      ...project,
      method: 'POST',
      body: { external_id: `s-${i}`, coin: 'tok', amount_crypto: '2.5' },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, created.body.address, units);
  }
  await chain.anvil.mine(2);
  await scanOnce(gw, 'eth', 'anvil');
  const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination });
  t.is(quote.status, 200, JSON.stringify(quote.body));
  t.false(quote.body.quotes.find((q: any) => q.method === 'eip7702').available);
  t.deepEqual((await api('GET', `${ACCOUNTS}/sweepers?chain=eth&network=anvil`)).body.sweepers, []);
});

test.serial('a token bound to one project may not deploy a sweeper (it serves every project paying to its destination)', async (t) => {
  const bound = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], project: project.projectId }, CLI_ACTOR)).token;
  const refused = await api('POST', `${ACCOUNTS}/sweepers`, { chain: 'eth', network: 'anvil', destination }, bound);
  t.is(refused.status, 403);
  t.is(refused.body.error_code, 'permission_denied');
});

test.serial('a bad destination is a validation error, not a plan', async (t) => {
  const refused = await api('POST', `${ACCOUNTS}/sweepers`, { chain: 'eth', network: 'anvil', destination: 'nope' });
  t.is(refused.status, 422, JSON.stringify(refused.body));
});

test.serial('the sweeper deployed by a signed plan is recorded once confirmed, and an eip7702 sweep to its destination uses it', async (t) => {
  const created = await api('POST', `${ACCOUNTS}/sweepers`, { chain: 'eth', network: 'anvil', destination });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, { kind: 'sweeper_deployment', method: 'sweeper_deployment', status: 'awaiting_signature', rounds: 1, destination });
  t.deepEqual(created.body.addresses, []);
  const contract = created.body.steps[0].to;
  // A plan without addresses is no project's: neither a project-bound token nor another operator's reaches it.
  const bound = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], project: project.projectId }, CLI_ACTOR)).token;
  const otherOperator = (await gw.kernel.cradle.tenancyOperators.create('treasury-sweeper-other', CLI_ACTOR)).id;
  const other = (await gw.kernel.cradle.tenancyPats.create({ scopes: ['treasury:read', 'treasury:write'], operator: otherOperator }, CLI_ACTOR)).token;
  for (const outsider of [bound, other]) {
    t.is((await api('GET', `${ACCOUNTS}/plans/${created.body.id}`, undefined, outsider)).status, 404);
    t.is((await api('POST', `${ACCOUNTS}/plans/${created.body.id}/cancel`, undefined, outsider)).status, 404);
    const listed = (await api('GET', `${ACCOUNTS}/plans`, undefined, outsider)).body.plans;
    t.false(listed.some((p: any) => p.id === created.body.id));
  }
  t.true((await api('GET', `${ACCOUNTS}/plans`)).body.plans.some((p: any) => p.id === created.body.id));
  // Not recorded before it is confirmed.
  t.deepEqual((await api('GET', `${ACCOUNTS}/sweepers?chain=eth&network=anvil`)).body.sweepers, []);

  const done = await signAndRun(t, created.body.id);
  t.is(done.status, 'confirmed', JSON.stringify(done));
  const recorded = (await api('GET', `${ACCOUNTS}/sweepers?chain=eth&network=anvil`)).body.sweepers;
  t.is(recorded.length, 1);
  t.like(recorded[0], { chain: 'eth', network: 'anvil', destination, contract, plan_id: created.body.id });

  const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'eip7702' });
  t.true(quote.body.quotes[0].available, JSON.stringify(quote.body));
  const sweep = await api('POST', `${ACCOUNTS}/plans`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'eip7702' });
  t.is(sweep.status, 201, JSON.stringify(sweep.body));
  const swept = await signAndRun(t, sweep.body.id);
  t.is(swept.status, 'confirmed', JSON.stringify(swept));
  t.is(await chain.balanceOf(chain.contracts.erc20, destination), 5n * 10n ** 18n);
  for (const a of sweep.body.addresses) t.is(await chain.balanceOf(chain.contracts.erc20, a.address), 0n);
  swept7702 = sweep.body.addresses.map((a: any) => a.address);
  deployed = contract;
});

test.serial('a recorded sweeper whose code is not the sweeper for its destination is not used', async (t) => {
  await chain.anvil.sendToken(chain.contracts.erc20, chain.funder, swept7702[0]!, 10n ** 18n);
  await chain.anvil.mine(1);
  // Rows pointing at the gas account (no code) and at the real sweeper of another destination: the
  // plugin's code check leaves both unused, so the chain is told of no sweeper at all.
  const noCode = EvmTreasuryChain.freshAddress();
  const otherDestination = EvmTreasuryChain.freshAddress();
  await gw.kernel.cradle.db('treasury_sweepers').insert([
    { chain: 'eth', network: 'anvil', destination: noCode, contract: chain.gasAccount.address, plan_id: null },
    { chain: 'eth', network: 'anvil', destination: otherDestination, contract: deployed, plan_id: null },
  ]);
  for (const to of [noCode, otherDestination]) {
    const quote = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination: to, method: 'eip7702' });
    t.is(quote.status, 200, JSON.stringify(quote.body));
    t.false(quote.body.quotes[0].available);
    t.regex(quote.body.quotes[0].reason, /no sweeper contract is deployed/);
  }
  // The recorded one for its own destination is used.
  const ok = await api('POST', `${ACCOUNTS}/quote`, { chain: 'eth', network: 'anvil', coin: 'tok', destination, method: 'eip7702' });
  t.true(ok.body.quotes[0].available, JSON.stringify(ok.body));
});

test.serial('CLI: sweeper-deploy plans a deployment and writes its file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'treasury-sweeper-cli-'));
  try {
    const out = join(dir, 'deploy.json');
    const to = EvmTreasuryChain.freshAddress();
    const run = await cli('treasury', 'sweeper-deploy', '--chain', 'eth', '--network', 'anvil', '--to', to, '--out', out, '--json');
    t.is(run.code, 0, run.stderr);
    t.like(run.json.plan, { method: 'sweeper_deployment', destination: to });
    const file = JSON.parse(await readFile(out, 'utf8'));
    t.is(file.plan_id, run.json.plan.id);
    t.is(file.sweeper_contract, run.json.plan.steps[0].to);
    const list = await cli('treasury', 'sweepers', '--chain', 'eth', '--network', 'anvil', '--json');
    t.is(list.code, 0, list.stderr);
    t.true(list.json.sweepers.some((s: any) => s.destination === destination));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

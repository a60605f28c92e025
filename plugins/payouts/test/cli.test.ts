/**
 * The operator CLI of refunds and payouts (issue 37): `gateway payout list | show | approve |
 * cancel | batch | policy | export`, run as the CLI runs them (the operator's commands on the test
 * kernel's database), on a sandbox project whose invoice the sandbox's simulation overpaid. The CLI
 * approves as the active administrator it names (`--as`).
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { watchersPlugin } from '@gw/plugin-watchers';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { activeUser, ALL_CHAINS, FIXED_RATES, cliRunner } from '@gw/testing';
import { payoutsPlugin } from '../src/index.js';
import { overpaidSandboxInvoice } from './helpers.js';

const PLUGINS = [...SANDBOX_PLUGINS, watchersPlugin, treasuryPlugin, checkoutPlugin, oauthPlugin, payoutsPlugin];
const TESTNET_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const PARTNER = { actor: 'api_key:test', channel: 'rest' as const };

let gw: TestKernel;
let projectId: string;
let invoiceId: string;

const runCli = cliRunner({
  plugins: PLUGINS,
  chains: ALL_CHAINS,
  databaseUrl: () => gw.database.url,
  overrides: () => ({ 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.address-pool.targetFree': 3 }),
});

test.before(async () => {
  gw = await startSandboxKernel({}, PLUGINS);
  const sandbox = await gw.kernel.cradle.sandboxProjects.provision({ name: 'cli-shop' }, CLI_ACTOR);
  projectId = sandbox.project.id;
  invoiceId = await overpaidSandboxInvoice(gw, projectId, sandbox.api_key.api_secret);
});
test.after.always(async () => {
  await gw?.close();
});

test.serial('list, show, approve, cancel and policy with --json; approval as the operator; refusals exit non-zero with the error code', async (t) => {
  const refund = (await gw.kernel.cradle.payoutsItems.createRefund({ projectId, invoiceId, amount: '0.0001', address: TESTNET_ADDRESS }, PARTNER)).item;
  const payout = (
    await gw.kernel.cradle.payoutsItems.createPayouts(projectId, [{ address: TESTNET_ADDRESS, coin: 'btc', amount: '0.0002', reference: 'aff-1' }], PARTNER)
  ).items[0]!;

  const pending = await runCli('payout', 'list', '--json');
  t.is(pending.code, 0, pending.stdout);
  t.deepEqual(pending.json.items.map((i: { id: string }) => i.id).sort(), [refund.id, payout.id].sort());
  const payouts = await runCli('payout', 'list', '--project', projectId, '--kind', 'payout', '--status', 'pending_approval', '--json');
  t.is(payouts.code, 0, payouts.stdout);
  t.deepEqual(
    payouts.json.items.map((i: { id: string }) => i.id),
    [payout.id],
  );
  const both = await runCli('payout', 'list', '--project', projectId, '--json');
  t.is(both.json.refunds.items[0].id, refund.id);
  t.is(both.json.payouts.items[0].id, payout.id);
  t.not((await runCli('payout', 'list', '--status', 'approved', '--json')).code, 0, '--status needs --project');

  const shown = await runCli('payout', 'show', '--project', projectId, '--id', payout.id, '--json');
  t.is(shown.code, 0, shown.stdout);
  t.like(shown.json.item, { id: payout.id, object: 'payout', status: 'pending_approval', approvals_required: 1 });

  t.like(shown.json, { address_from: 'given by the partner at creation' });

  // The CLI approves as a named active administrator, recorded as that user; never without one, never as a member.
  const operatorId = (await gw.kernel.cradle.tenancyProjects.get(projectId)).operator_id;
  const user = (email: string, role: 'admin' | 'member') => activeUser(gw, { email, operator: operatorId, role });
  const admin = await user('cli-admin@example.com', 'admin');
  await user('cli-member@example.com', 'member');
  t.not((await runCli('payout', 'approve', '--id', refund.id, '--json')).code, 0, '--as is required');
  const asMember = await runCli('payout', 'approve', '--id', refund.id, '--as', 'cli-member@example.com', '--json');
  t.not(asMember.code, 0);
  t.regex(asMember.stdout + asMember.stderr, /approval_forbidden/);
  const approved = await runCli('payout', 'approve', '--id', refund.id, '--as', 'cli-admin@example.com', '--json');
  t.is(approved.code, 0, approved.stdout + approved.stderr);
  t.like(approved.json.item, { id: refund.id, status: 'approved' });
  t.deepEqual(
    approved.json.item.approvals.map((a: { user_id: string }) => a.user_id),
    [admin.id],
  );
  const twice = await runCli('payout', 'approve', '--id', refund.id, '--as', 'cli-admin@example.com', '--json');
  t.not(twice.code, 0);
  t.regex(twice.stdout + twice.stderr, /item_not_approvable|approval_already_given/);

  const cancelled = await runCli('payout', 'cancel', '--id', payout.id, '--json');
  t.is(cancelled.code, 0, cancelled.stdout + cancelled.stderr);
  t.is(cancelled.json.item.status, 'cancelled');

  const policy = await runCli('payout', 'policy', '--project', projectId, '--dual-approval-above-usd', '100', '--json');
  t.is(policy.code, 0, policy.stdout + policy.stderr);
  t.deepEqual(policy.json.policy, { dualApprovalAboveUsd: '100', claimProofAboveUsd: null });
  const kept = await runCli('payout', 'policy', '--project', projectId, '--claim-proof-above-usd', '20', '--json');
  t.deepEqual(kept.json.policy, { dualApprovalAboveUsd: '100', claimProofAboveUsd: '20' }, 'a flag not given keeps its value');
  const reset = await runCli('payout', 'policy', '--project', projectId, '--dual-approval-above-usd', 'none', '--claim-proof-above-usd', 'default', '--json');
  t.deepEqual(reset.json.policy, { dualApprovalAboveUsd: null, claimProofAboveUsd: null });
  t.not((await runCli('payout', 'policy', '--project', projectId, '--dual-approval-above-usd', '1.234', '--json')).code, 0);
});

test.serial('batch: nothing approved for the coin is batch_empty; export: money in beside money out as JSON and CSV', async (t) => {
  const empty = await runCli(
    'payout',
    'batch',
    '--project',
    projectId,
    '--chain',
    'btc',
    '--network',
    'testnet',
    '--coin',
    'btc',
    '--items',
    '01ARZ3NDEKTSV4RRFFQ69G5FAV',
    '--json',
  );
  t.not(empty.code, 0);
  t.regex(empty.stdout + empty.stderr, /batch_empty/);
  t.not(
    (await runCli('payout', 'batch', '--project', projectId, '--chain', 'btc', '--network', 'testnet', '--coin', 'btc', '--source', 'address', '--json')).code,
    0,
  );

  const json = await runCli('payout', 'export', '--project', projectId, '--from', '2000-01-01', '--to', '2100-01-01', '--format', 'json', '--json');
  t.is(json.code, 0, json.stdout + json.stderr);
  t.deepEqual(json.json.rows, []);
  t.is(json.json.money_in.length, 1);
  t.like(json.json.money_in[0], { kind: 'received', coin: 'btc' });
  t.true(BigInt(json.json.money_in[0].amount_units) > 100_000n, 'the overpaid invoice received more than its 0.001 BTC');
  const csv = await runCli('payout', 'export', '--project', projectId, '--from', '2000-01-01', '--to', '2100-01-01', '--json');
  t.is(csv.json.csv, 'at_iso,kind,project_id,chain,network,coin,amount,amount_units,item_id,plan_id,txid\r\n');
  t.not((await runCli('payout', 'export', '--project', projectId, '--from', '2100-01-01', '--to', '2000-01-01', '--json')).code, 0);
});

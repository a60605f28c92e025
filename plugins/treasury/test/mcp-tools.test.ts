/**
 * The treasury's MCP tools (issue 35 item 6) over the MCP plugin's streamable HTTP transport, with
 * the MCP SDK's own client and a PAT, on a real Bitcoin node (bcoin 1.0.2, regtest, read through
 * the `bitcoin-core` provider kind): a paid invoice's output shows in `get_treasury_balances`;
 * `propose_treasury_plan` makes a plan awaiting an offline signature and nothing else (no tool
 * imports, approves, signs or broadcasts); a token without the scope is refused before the tool runs.
 */
import test from 'ava';
import { CLI_ACTOR, type ChainId } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { type Bcoin, projectWithPools, type TestProject, stopAll } from '@gw/testing';
import { MCP_PLUGINS, callError, callOk, patClient, rawToolCall, scopeRefusal } from '@gw/plugin-mcp/testing';
import { paidInvoice, startBcoinTreasury } from './treasury-helpers.js';
import { scanOnce } from '@gw/plugin-watchers/testing';

let node: Bcoin;
let gw: TestKernel;
let project: TestProject;
let operatorId: string;

test.before(async () => {
  ({ node, gw } = await startBcoinTreasury({ plugins: MCP_PLUGINS, poolSize: 5, feeRate: 2n, config: { 'plugins.mcp.toolCallsPerMinute': 1000 } }));
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('treasury-mcp', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['btc' as ChainId], 'testnet');
  await paidInvoice(gw, project, 'btc', 1_000_000n, (address, sats) => node.send(address, sats));
  await node.mine(6);
  await scanOnce(gw, 'btc', 'regtest');
});
test.after.always(() => stopAll(gw, node));

const tokenWith = async (scopes: string[]) => (await gw.kernel.cradle.tenancyPats.create({ scopes, operator: operatorId }, CLI_ACTOR)).token;

test.serial('get_treasury_balances with treasury:read answers what the paid invoice left, per network and per address', async (t) => {
  const client = await patClient(gw, await tokenWith(['treasury:read']));
  const perNetwork = await callOk(client, 'get_treasury_balances', { project_id: project.projectId, chain: 'btc', network: 'regtest' });
  t.is(perNetwork.rows.length, 1);
  t.like(perNetwork.rows[0], {
    chain: 'btc',
    network: 'regtest',
    coin: 'btc',
    project_id: project.projectId,
    confirmed_units: '1000000',
    unconfirmed_units: '0',
    outputs: 1,
    unclaimed_units: '0',
  });
  const perAddress = await callOk(client, 'get_treasury_balances', { project_id: project.projectId, group_by: 'address' });
  t.is(perAddress.rows.length, 1);
  t.like(perAddress.rows[0], { confirmed_units: '1000000', outputs: 1 });
  t.truthy(perAddress.rows[0].address);
  await client.close();
});

test.serial('propose_treasury_plan with treasury:write makes a plan awaiting signature; no tool approves, imports or broadcasts', async (t) => {
  const client = await patClient(gw, await tokenWith(['treasury:read', 'treasury:write']));
  const { tools } = await client.listTools();
  const treasuryTools = tools.map((tool) => tool.name).filter((name) => /treasury|plan|sign|broadcast|approve|import/.test(name));
  // Account chains (issue 36) add reads and a proposal; still nothing signs, imports or broadcasts.
  t.deepEqual(treasuryTools.sort(), [
    'get_treasury_balances',
    'get_treasury_holdings',
    'propose_treasury_account_plan',
    'propose_treasury_plan',
    'quote_treasury_sweep',
  ]);
  t.true(tools.find((tool) => tool.name === 'get_treasury_balances')!.annotations?.readOnlyHint);

  const plan = await callOk(client, 'propose_treasury_plan', { project_id: project.projectId, chain: 'btc', network: 'regtest', destination: 'own' });
  t.like(plan, { kind: 'sweep', status: 'awaiting_signature', chain: 'btc', network: 'regtest', destination_kind: 'own' });
  t.is(plan.plan_file.plan_id, plan.id);
  t.is(plan.plan_file.inputs.length, 1);

  // The SDK refuses an unknown tool; the plan stays where the proposal left it.
  const unknown = await client
    .callTool({ name: 'broadcast_treasury_plan', arguments: { project_id: project.projectId, plan_id: plan.id } })
    .catch((e: Error) => e);
  t.true(unknown instanceof Error || (unknown as { isError?: boolean }).isError === true);
  const stored = await gw.kernel.cradle.treasuryPlans.get(plan.id, { operatorId });
  t.is(stored.status, 'awaiting_signature');
  // The plan holds its output: a second sweep finds nothing left to move.
  t.is(
    await callError(client, 'propose_treasury_plan', { project_id: project.projectId, chain: 'btc', network: 'regtest', destination: 'own' }),
    'treasury_nothing_to_move',
  );
  await client.close();
});

test.serial('a token without the treasury scopes is refused with 403 insufficient_scope before the tool runs', async (t) => {
  const token = await tokenWith(['invoices:read', 'projects:read']);
  for (const [name, scope, args] of [
    ['get_treasury_balances', 'treasury:read', {}],
    ['propose_treasury_plan', 'treasury:write', { chain: 'btc', network: 'regtest', destination: 'own' }],
  ] as const) {
    t.like(await rawToolCall(gw, name, { project_id: project.projectId, ...args }, token), scopeRefusal(name, scope));
  }
  // A reader cannot propose either.
  const propose = { project_id: project.projectId, chain: 'btc', network: 'regtest', destination: 'own' };
  t.like(
    await rawToolCall(gw, 'propose_treasury_plan', propose, await tokenWith(['treasury:read']), 'r'),
    scopeRefusal('propose_treasury_plan', 'treasury:write'),
  );
});

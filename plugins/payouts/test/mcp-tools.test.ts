/**
 * The MCP tools of refunds and payouts (issue 37 item 7) over the MCP plugin's streamable HTTP
 * transport, with the MCP SDK's own client and a PAT, on a sandbox project whose invoice was
 * overpaid by the sandbox's simulation: an agent lists and proposes; it is told a person approves;
 * no approval tool exists and an invented one is refused; the refund stays where it was.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { MCP_PLUGINS, callError, callOk, patClient, rawToolCall, scopeRefusal } from '@gw/plugin-mcp/testing';
import { startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { watchersPlugin } from '@gw/plugin-watchers';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { payoutsPlugin } from '../src/index.js';
import { APPROVAL_BY_A_PERSON } from '../src/mcp-tools.js';
import { overpaidSandboxInvoice } from './helpers.js';

let gw: TestKernel;
let operatorId: string;
let projectId: string;
let invoiceId: string;

test.before(async () => {
  gw = await startSandboxKernel({ 'plugins.mcp.toolCallsPerMinute': 1000 }, [...MCP_PLUGINS, watchersPlugin, treasuryPlugin, checkoutPlugin, payoutsPlugin]);
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('payouts-mcp', CLI_ACTOR)).id;
  const sandbox = await gw.kernel.cradle.sandboxProjects.provision({ name: 'shop', operator: operatorId }, CLI_ACTOR);
  projectId = sandbox.project.id;
  invoiceId = await overpaidSandboxInvoice(gw, projectId, sandbox.api_key.api_secret);
});
test.after.always(async () => {
  await gw?.close();
});

const tokenWith = async (scopes: string[]) => (await gw.kernel.cradle.tenancyPats.create({ scopes, operator: operatorId }, CLI_ACTOR)).token;

test.serial('an agent proposes a refund, is told a person approves it, finds no approval tool, and an invented one is refused', async (t) => {
  const client = await patClient(gw, await tokenWith(['refunds:read', 'refunds:write', 'payouts:read']));
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  t.true(names.includes('propose_refund'));
  t.true(names.includes('list_refunds'));
  t.true(names.includes('list_payouts'));
  t.deepEqual(
    names.filter((name) => /approv|batch|sign|broadcast/.test(name) && /refund|payout/.test(name)),
    [],
    'no tool approves, batches, signs or broadcasts a refund or payout',
  );
  t.true(tools.find((tool) => tool.name === 'list_refunds')!.annotations?.readOnlyHint);
  t.regex(tools.find((tool) => tool.name === 'propose_refund')!.description ?? '', /administrator must approve/);

  const proposed = await callOk(client, 'propose_refund', { project_id: projectId, invoice_id: invoiceId, reason: 'overpaid', idempotency_key: 'agent-1' });
  t.true(proposed.created);
  t.is(proposed.approval, APPROVAL_BY_A_PERSON);
  t.like(proposed.refund, { object: 'refund', invoice_id: invoiceId, status: 'awaiting_claim', coin: 'btc', approvals: [] });
  t.true(BigInt(proposed.refund.amount_units) > 0n, 'the natural amount: the excess of the overpayment');
  // The claim link is a bearer capability for the payer's money: an agent never sees it (the signed API answers it).
  t.is(proposed.refund.claim_url, null);
  t.regex((await gw.kernel.cradle.payoutsItems.get(projectId, 'refund', proposed.refund.id)).claim_url ?? '', /\/refunds\/claim\//);
  // An agent cannot choose where money goes: the tool takes no address.
  const schema = tools.find((tool) => tool.name === 'propose_refund')!.inputSchema as { properties: Record<string, unknown> };
  t.false('address' in schema.properties);
  t.is(
    await callError(client, 'propose_refund', { project_id: projectId, invoice_id: invoiceId, address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080' }),
    'validation_error',
  );
  // The same key answers the first refund rather than proposing a second.
  const again = await callOk(client, 'propose_refund', { project_id: projectId, invoice_id: invoiceId, reason: 'overpaid', idempotency_key: 'agent-1' });
  t.false(again.created);
  t.is(again.refund.id, proposed.refund.id);

  // An approval tool the agent invents does not exist: the SDK's error or a tool error, nothing approved.
  for (const name of ['approve_refund', 'approve_payout']) {
    const invented = await client.callTool({ name, arguments: { project_id: projectId, refund_id: proposed.refund.id } }).catch((e: Error) => e);
    t.true(invented instanceof Error || (invented as { isError?: boolean }).isError === true, name);
  }
  const raw = await rawToolCall(gw, 'approve_refund', { project_id: projectId, refund_id: proposed.refund.id }, await tokenWith(['admin:all']), 'a');
  t.true(raw.body.error !== undefined || raw.body.result?.isError === true, JSON.stringify(raw.body));
  const stored = await gw.kernel.cradle.payoutsItems.get(projectId, 'refund', proposed.refund.id);
  t.is(stored.status, 'awaiting_claim');
  t.deepEqual(stored.approvals, []);

  const listed = await callOk(client, 'list_refunds', { project_id: projectId, invoice_id: invoiceId });
  t.deepEqual(
    listed.items.map((i: { id: string }) => i.id),
    [proposed.refund.id],
  );
  t.is(listed.items[0].claim_url, null);
  t.deepEqual((await callOk(client, 'list_payouts', { project_id: projectId })).items, []);
  // More than the invoice received is refused with the refund's own code.
  t.is(await callError(client, 'propose_refund', { project_id: projectId, invoice_id: invoiceId, amount: '5' }), 'refund_exceeds_received');
  await client.close();
});

test.serial('a token without the scopes is refused with 403 insufficient_scope before the tool runs', async (t) => {
  const token = await tokenWith(['invoices:read']);
  for (const [name, scope, args] of [
    ['list_refunds', 'refunds:read', {}],
    ['list_payouts', 'payouts:read', {}],
    ['propose_refund', 'refunds:write', { invoice_id: invoiceId }],
  ] as const) {
    t.like(await rawToolCall(gw, name, { project_id: projectId, ...args }, token), scopeRefusal(name, scope));
  }
  // A reader cannot propose.
  const reader = await rawToolCall(gw, 'propose_refund', { project_id: projectId, invoice_id: invoiceId }, await tokenWith(['refunds:read']), 'r');
  t.is(reader.status, 403);
  t.is(await gw.kernel.cradle.payoutsItems.list({ projectId, kind: 'refund', limit: 10 }).then((p) => p.items.length), 1, 'nothing more was proposed');
});

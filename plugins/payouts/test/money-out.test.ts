/**
 * Money out beside money in (issue 37 item 8), `GET /api/v1/money-out` with a personal access token:
 * a sandbox project's overpaid invoice (money in), a refund and a payout driven to `completed` by the
 * sandbox's simulations (money out, each with its synthetic transaction), one cancelled payout (no
 * money out), as JSON and CSV; the scopes and the reach of the token; bad periods.
 */
import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import { SANDBOX_PLUGINS, startSandboxKernel } from '@gw/plugin-sandbox/testing';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { watchersPlugin } from '@gw/plugin-watchers';
import { checkoutPlugin } from '@gw/plugin-checkout';
import { oauthPlugin } from '@gw/plugin-oauth';
import { payoutsPlugin } from '../src/index.js';
import type { ItemView } from '../src/contract.js';

const TESTNET_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const PARTNER = { actor: 'api_key:test', channel: 'rest' as const };

let gw: TestKernel;
let operatorId: string;
let projectId: string;
let refund: ItemView;
let payout: ItemView;

test.before(async () => {
  gw = await startSandboxKernel({}, [...SANDBOX_PLUGINS, watchersPlugin, treasuryPlugin, checkoutPlugin, oauthPlugin, payoutsPlugin]);
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('books', CLI_ACTOR)).id;
  const sandbox = await gw.kernel.cradle.sandboxProjects.provision({ name: 'books', operator: operatorId }, CLI_ACTOR);
  projectId = sandbox.project.id;
  const call = (path: string, body?: unknown) =>
    signedFetch(gw.url, `/api/v1/sandbox${path}`, { projectId, secret: sandbox.api_key.api_secret, method: 'POST', ...(body === undefined ? {} : { body }) });
  const created = await call('/invoices', { external_id: 'order-1', coin: 'btc', amount_crypto: '0.001' });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  const invoiceId = created.body.id as string;
  if ((await call(`/invoices/${invoiceId}/simulate-detect`)).status !== 200) throw new Error('detect');
  if ((await call(`/invoices/${invoiceId}/simulate-overpaid`, { multiplier: 2 })).status !== 200) throw new Error('overpaid');

  const items = gw.kernel.cradle.payoutsItems;
  refund = (await items.createRefund({ projectId, invoiceId, address: TESTNET_ADDRESS }, PARTNER)).item;
  const payouts = (
    await items.createPayouts(
      projectId,
      [
        { address: TESTNET_ADDRESS, coin: 'btc', amount: '0.0002', reference: 'aff-1' },
        { address: TESTNET_ADDRESS, coin: 'btc', amount: '0.0003', reference: 'aff-2' },
      ],
      PARTNER,
    )
  ).items;
  payout = payouts[0]!;
  await items.cancel(projectId, 'payout', payouts[1]!.id, PARTNER);
  const simulations = gw.kernel.cradle.payoutsSimulations;
  for (const [kind, id] of [
    ['refund', refund.id],
    ['payout', payout.id],
  ] as const) {
    for (const step of ['approve', 'send', 'confirm'] as const) await simulations.simulate(projectId, kind, id, step, {}, CLI_ACTOR);
  }
});
test.after.always(async () => {
  await gw?.close();
});

const tokenWith = async (scopes: string[], operator = operatorId) => (await gw.kernel.cradle.tenancyPats.create({ scopes, operator }, CLI_ACTOR)).token;
const get = async (query: string, token: string) => {
  const response = await fetch(`${gw.url}/api/v1/money-out?${query}`, { headers: { authorization: `Bearer ${token}` } });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type') ?? '',
    text,
    body: /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : undefined,
  };
};

test('completed refunds and payouts are money out, with their transactions, beside the invoice’s money in (JSON)', async (t) => {
  const answer = await get(`project_id=${projectId}&from=2000-01-01&to=2100-01-01`, await tokenWith(['payouts:read']));
  t.is(answer.status, 200, answer.text);
  const books = answer.body;
  t.is(books.project_id, projectId);
  const completedRefund = await gw.kernel.cradle.payoutsItems.get(projectId, 'refund', refund.id);
  const completedPayout = await gw.kernel.cradle.payoutsItems.get(projectId, 'payout', payout.id);
  t.is(completedRefund.status, 'completed');
  t.deepEqual(
    books.rows.map((r: { kind: string; item_id: string; txid: string; amount: string }) => [r.kind, r.item_id, r.txid, r.amount]).sort(),
    [
      ['payout', payout.id, completedPayout.txid, '0.0002'],
      ['refund', refund.id, completedRefund.txid, completedRefund.amount],
    ].sort(),
    'the cancelled payout is no money out',
  );
  t.truthy(completedRefund.txid);
  // Money in: the overpaid invoice received twice its 0.001 BTC; money out: the refund (its natural amount, the excess) and the payout.
  t.deepEqual(books.money_in, [{ kind: 'received', chain: 'btc', coin: 'btc', amount: '0.002', amount_units: '200000' }]);
  t.deepEqual(
    books.money_out.map((m: { kind: string; amount_units: string }) => [m.kind, m.amount_units]).sort(),
    [
      ['payout', '20000'],
      ['refund', completedRefund.amount_units],
    ].sort(),
  );
  t.is(completedRefund.amount_units, '100000', 'the natural amount of an overpaid invoice is its excess');

  // A period that ends before the items completed holds none of them.
  const before = await get(`project_id=${projectId}&from=2000-01-01&to=2001-01-01`, await tokenWith(['treasury:read']));
  t.is(before.status, 200);
  t.deepEqual(before.body.rows, []);
  t.deepEqual(before.body.money_out, []);
});

test('the CSV export has a header line and one line per row', async (t) => {
  const answer = await get(`project_id=${projectId}&from=2000-01-01&to=2100-01-01&format=csv`, await tokenWith(['treasury:read']));
  t.is(answer.status, 200, answer.text);
  t.regex(answer.type, /^text\/csv/);
  const lines = answer.text.trimEnd().split('\r\n');
  t.is(lines[0], 'at_iso,kind,project_id,chain,network,coin,amount,amount_units,item_id,plan_id,txid');
  t.is(lines.length, 3);
  t.true(lines.some((line) => line.includes(`,refund,${projectId},btc,`) && line.includes(refund.id)));
});

test('a token without treasury:read or payouts:read is 403; another operator’s project is 404; bad periods are 400', async (t) => {
  const refused = await get(`project_id=${projectId}&from=2000-01-01&to=2100-01-01`, await tokenWith(['invoices:read', 'refunds:read']));
  t.is(refused.status, 403);
  t.is(refused.body.error_code, 'insufficient_scope');
  const stranger = (await gw.kernel.cradle.tenancyOperators.create('stranger', CLI_ACTOR)).id;
  const foreign = await get(`project_id=${projectId}&from=2000-01-01&to=2100-01-01`, await tokenWith(['payouts:read'], stranger));
  t.is(foreign.status, 404);
  t.is(foreign.body.error_code, 'project_not_found');
  const token = await tokenWith(['payouts:read']);
  t.is((await get(`project_id=${projectId}&from=2100-01-01&to=2000-01-01`, token)).status, 400);
  t.is((await get(`project_id=${projectId}&from=yesterday&to=2000-01-01`, token)).status, 400);
  t.is((await get(`project_id=${projectId}&from=2026-02-31&to=2027-01-01`, token)).status, 400);
  const unnamed = await get(`from=2000-01-01&to=2100-01-01`, token);
  t.is(unnamed.status, 404, 'an operator’s token names the project');
});

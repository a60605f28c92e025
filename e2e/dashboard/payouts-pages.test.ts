import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { treasuryPlugin } from '@gw/plugin-treasury';
import { payoutsPlugin } from '@gw/plugin-payouts';
import { overpaidSandboxInvoice } from '@gw/plugin-payouts/testing';
import { axeViolations } from './harness.js';
import { MailSink, signedInPage, signedInUser, startDashboardKernel } from './kernel.js';

// The "Refunds and payouts" page (contributed by the payouts plugin) over HTTP with signed-in
// sessions: items with their approvals for every user; approve, cancel, batch and the policy for
// administrators only (a member's approval is 403 approval_forbidden); the invoice page's refunds;
// the books' export; partner text escaped; axe-clean in Chromium. The real-node batch, signature
// and broadcast are plugins/payouts/test/*.

const SCRIPT = '<script>window.__pwned = 1</script>';
/** A valid Bitcoin testnet address (BIP 173's P2WPKH example): sandbox projects pay on testnet. */
const TESTNET_ADDRESS = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';

let gw: TestKernel;
let sink: MailSink;
let operator: string;
let projectId: string;
let invoiceId: string;
let refundId: string;
let payoutId: string;

test.before(async () => {
  sink = await MailSink.start();
  gw = await startDashboardKernel(sink, {}, [treasuryPlugin, payoutsPlugin]);
  operator = (await gw.kernel.cradle.tenancyOperators.create('payouts-ops', CLI_ACTOR)).id;
  const sandbox = await gw.kernel.cradle.sandboxProjects.provision({ name: 'shop', operator }, CLI_ACTOR);
  projectId = sandbox.project.id;
  invoiceId = await overpaidSandboxInvoice(gw, projectId, sandbox.api_key.api_secret);
  const partner = { actor: 'api_key:test', channel: 'rest' as const };
  refundId = (await gw.kernel.cradle.payoutsItems.createRefund({ projectId, invoiceId, amount: '0.0001', address: TESTNET_ADDRESS, reason: SCRIPT }, partner))
    .item.id;
  payoutId = (
    await gw.kernel.cradle.payoutsItems.createPayouts(
      projectId,
      [{ address: TESTNET_ADDRESS, coin: 'btc', amount: '0.0002', reference: `aff-1${SCRIPT}` }],
      partner,
    )
  ).items[0]!.id;
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const base = () => `/dashboard/projects/${projectId}/payouts`;

test.serial('every user sees the items with their approvals; only administrators see the buttons and forms; partner text is escaped', async (t) => {
  const member = await signedInUser(gw, sink, 'member', operator);
  const page = await member.client.get(base());
  t.is(page.status, 200, page.text.slice(0, 300));
  t.regex(page.text, new RegExp(`href="${base()}"`), 'in the navigation');
  t.true(page.text.includes(refundId));
  t.true(page.text.includes(payoutId));
  t.true(page.text.includes('0/1'), 'approvals n/m');
  t.true(page.text.includes('given by the partner at creation'), 'the list says how the address arrived');
  t.false(page.text.includes(SCRIPT));
  t.true(page.text.includes('aff-1&lt;script&gt;'));
  t.false(page.text.includes('/approve"'), 'a member sees no approve button');
  t.false(page.text.includes(`action="${base()}/batches"`));
  t.false(page.text.includes(`action="${base()}/policy"`));
  t.true(page.text.includes('read-only member'));

  const admin = await signedInUser(gw, sink, 'admin', operator);
  const full = await admin.client.get(base());
  t.true(full.text.includes(`action="${base()}/items/${refundId}/approve"`));
  t.true(full.text.includes(`action="${base()}/items/${payoutId}/cancel"`));
  t.true(full.text.includes(`action="${base()}/batches"`));
  t.true(full.text.includes(`action="${base()}/policy"`));
  t.false(/<script[^>]+src="https?:/.test(full.text), 'no script from a CDN');

  const item = await member.client.get(`${base()}/refunds/${refundId}`);
  t.is(item.status, 200);
  t.true(item.text.includes(TESTNET_ADDRESS));
  t.regex(item.text, /<dt>Address from<\/dt><dd>given by the partner at creation<\/dd>/);
  t.false(item.text.includes(SCRIPT));
  t.is((await member.client.get(`${base()}/payouts/${refundId}`)).status, 404, 'a refund is no payout');
});

test.serial('a member’s approval is refused 403 approval_forbidden; an administrator’s approves; a POST without the CSRF token changes nothing', async (t) => {
  const member = await signedInUser(gw, sink, 'member', operator);
  const refused = await member.client.post(`${base()}/items/${refundId}/approve`, { _csrf: member.csrf });
  t.is(refused.status, 403);
  t.true(refused.text.includes('<code>approval_forbidden</code>'));
  t.is((await member.client.post(`${base()}/items/${payoutId}/cancel`, { _csrf: member.csrf })).status, 403);

  const admin = await signedInUser(gw, sink, 'admin', operator);
  t.is((await admin.client.post(`${base()}/items/${refundId}/approve`, {})).status, 403, 'no CSRF token');
  t.is((await gw.kernel.cradle.payoutsItems.get(projectId, 'refund', refundId)).status, 'claimed');

  const approved = await admin.client.post(`${base()}/items/${refundId}/approve`, { _csrf: admin.csrf });
  t.is(approved.status, 303, approved.text.slice(0, 300));
  const item = await gw.kernel.cradle.payoutsItems.get(projectId, 'refund', refundId);
  t.is(item.status, 'approved');
  t.is(item.approvals.length, 1);
  t.is(item.approvals[0]!.user_id, admin.user.id);
  const again = await admin.client.post(`${base()}/items/${refundId}/approve`, { _csrf: admin.csrf });
  t.is(again.status, 409);
  t.true((await admin.client.get(base())).text.includes('1/1'));
});

test.serial('the policy form sets dual approval; a second administrator completes it; cancel works before a plan', async (t) => {
  const admin = await signedInUser(gw, sink, 'admin', operator);
  t.is((await admin.client.post(`${base()}/policy`, { _csrf: admin.csrf, dual_approval_above_usd: 'lots', claim_proof_above_usd: '' })).status, 400);
  const saved = await admin.client.post(`${base()}/policy`, { _csrf: admin.csrf, dual_approval_above_usd: '0', claim_proof_above_usd: '250.50' });
  t.is(saved.status, 303, saved.text.slice(0, 300));
  t.deepEqual(await gw.kernel.cradle.payoutsApprovals.policy(projectId), { dualApprovalAboveUsd: '0', claimProofAboveUsd: '250.50' });
  const shown = await admin.client.get(base());
  t.true(shown.text.includes('0 USD'));
  t.true(shown.text.includes('250.50 USD'));

  const partner = { actor: 'api_key:test', channel: 'rest' as const };
  const dual = (
    await gw.kernel.cradle.payoutsItems.createPayouts(projectId, [{ address: TESTNET_ADDRESS, coin: 'btc', amount: '0.0003', reference: 'aff-2' }], partner)
  ).items[0]!;
  t.is(dual.approvals_required, 2);
  t.is((await admin.client.post(`${base()}/items/${dual.id}/approve`, { _csrf: admin.csrf })).status, 303);
  t.is((await gw.kernel.cradle.payoutsItems.get(projectId, 'payout', dual.id)).status, 'pending_approval');
  t.true((await admin.client.get(base())).text.includes('1/2'));
  const second = await signedInUser(gw, sink, 'admin', operator);
  t.is((await second.client.post(`${base()}/items/${dual.id}/approve`, { _csrf: second.csrf })).status, 303);
  t.is((await gw.kernel.cradle.payoutsItems.get(projectId, 'payout', dual.id)).status, 'approved');

  const cancelled = await admin.client.post(`${base()}/items/${payoutId}/cancel`, { _csrf: admin.csrf });
  t.is(cancelled.status, 303);
  t.is((await gw.kernel.cradle.payoutsItems.get(projectId, 'payout', payoutId)).status, 'cancelled');
  t.is((await admin.client.post(`${base()}/items/${payoutId}/cancel`, { _csrf: admin.csrf })).status, 409, 'item_not_cancellable');
});

test.serial(
  'create batch: bad input is a 400 page, nothing approved for the coin is batch_empty, the treasury’s refusal leaves the items approved',
  async (t) => {
    const admin = await signedInUser(gw, sink, 'admin', operator);
    const form = { _csrf: admin.csrf, chain: 'btc', network: 'testnet', coin: 'btc', source: 'received' };
    t.is((await admin.client.post(`${base()}/batches`, { ...form, source: 'elsewhere' })).status, 400);
    t.is((await admin.client.post(`${base()}/batches`, { ...form, source: 'address' })).status, 400, 'address source without an address');
    t.is((await admin.client.post(`${base()}/batches`, { ...form, fee_rate: 'fast' })).status, 400);
    const empty = await admin.client.post(`${base()}/batches`, { ...form, chain: 'eth', network: 'sepolia', coin: 'eth' });
    t.is(empty.status, 422, empty.text.slice(0, 300));
    t.true(empty.text.includes('<code>batch_empty</code>'));
    // No treasury watches this sandbox network: the plan is refused and the items stay approved, in no plan.
    const refused = await admin.client.post(`${base()}/batches`, form);
    t.true(refused.status >= 400 && refused.status < 500, `${refused.status} ${refused.text.slice(0, 300)}`);
    const item = await gw.kernel.cradle.payoutsItems.get(projectId, 'refund', refundId);
    t.is(item.status, 'approved');
    t.is(item.plan_id, null);
    const member = await signedInUser(gw, sink, 'member', operator);
    t.is((await member.client.post(`${base()}/batches`, { ...form, _csrf: member.csrf })).status, 403);
    t.is((await member.client.post(`${base()}/policy`, { _csrf: member.csrf, dual_approval_above_usd: '1' })).status, 403);
  },
);

test.serial('the invoice page shows the invoice’s refunds; the books show money in beside money out and export CSV and JSON', async (t) => {
  const member = await signedInUser(gw, sink, 'member', operator);
  const invoice = await member.client.get(`/dashboard/projects/${projectId}/invoices/${invoiceId}`);
  t.is(invoice.status, 200);
  t.true(invoice.text.includes('<h2>Refunds</h2>'));
  t.true(invoice.text.includes(`href="${base()}/refunds/${refundId}"`));

  const page = await member.client.get(`${base()}?from=2000-01-01&to=2100-01-01`);
  t.true(page.text.includes('Money in from 2000-01-01'));
  t.regex(page.text, /<td>btc<\/td><td>btc<\/td><td>0\.\d+<\/td>/, 'the overpaid invoice’s receipt');
  t.true(page.text.includes('Nothing went out in this period.'));
  t.is((await member.client.get(`${base()}?from=2100-01-01&to=2000-01-01`)).status, 400);

  const csv = await member.client.get(`${base()}/money-out?from=2000-01-01&to=2100-01-01&format=csv`);
  t.is(csv.status, 200);
  t.regex(csv.headers.get('content-type') ?? '', /^text\/csv/);
  t.is(csv.text, 'at_iso,kind,project_id,chain,network,coin,amount,amount_units,item_id,plan_id,txid\r\n');
  const json = await member.client.get(`${base()}/money-out?from=2000-01-01&to=2100-01-01&format=json`);
  t.is(json.status, 200);
  const books = JSON.parse(json.text);
  t.is(books.project_id, projectId);
  t.deepEqual(books.rows, []);
  t.is(books.money_in[0].coin, 'btc');
  t.is((await member.client.get(`${base()}/money-out?from=yesterday&to=2100-01-01`)).status, 400);
});

test.serial('the pages are axe-clean in Chromium', async (t) => {
  const page = await signedInPage(t, gw, sink, operator, true);
  for (const path of [base(), `${base()}/refunds/${refundId}`, `${base()}/payouts/${payoutId}`, `/dashboard/projects/${projectId}/invoices/${invoiceId}`]) {
    const answer = await page.goto(path);
    t.is(answer?.status(), 200, path);
    t.deepEqual(await axeViolations(page), [], `axe-core on ${path}`);
    t.is(await page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned), undefined);
  }
});

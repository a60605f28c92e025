import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';
import { cliApprover, dashboardApprover } from '../src/index.js';
import { refundAmount } from '../src/services/refund-amount.js';
import { invoiceIn, sandboxClient, startPayoutsKernel } from './helpers.js';
import { activeUser, eventTypes } from '@gw/testing';

let gw: TestKernel;
test.before(async () => {
  gw = await startPayoutsKernel();
});
test.after.always(async () => {
  await gw?.close();
});

/** An active administrator of the project's operator, approving at the CLI (`--as`). */
async function activeAdmin(projectId: string) {
  const { tenancyUsers, tenancyProjects } = gw.kernel.cradle;
  const project = await tenancyProjects.get(projectId);
  const email = `cli-admin-${Math.random().toString(36).slice(2)}@example.com`;
  await activeUser(gw, { email, operator: project.operator_id, role: 'admin' });
  return cliApprover(tenancyUsers, email);
}

const refund = (c: Awaited<ReturnType<typeof sandboxClient>>, invoiceId: string, body: unknown = {}) => c.call('POST', `/invoices/${invoiceId}/refunds`, body);

test('an overpaid invoice refunds its excess by default; rate rules convert USD at payment and now; a spread is taken off', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['overpaid', { extraUnits: '250000000000000000' }]);
  t.is(inv.status, 'overpaid');
  const natural = await refund(c, inv.id);
  t.is(natural.status, 201, JSON.stringify(natural.body));
  t.like(natural.body, {
    object: 'refund',
    status: 'awaiting_claim',
    amount: '0.25',
    amount_units: '250000000000000000',
    invoice_id: inv.id,
    rate_rule: 'coin_amount',
  });
  t.regex(natural.body.claim_url, /\/refunds\/claim\/[0-9A-Za-z]{32}$/);
  // The excess is refunded: a second natural refund has nothing left.
  const again = await refund(c, inv.id);
  t.is(again.status, 422);
  t.is(again.body.error_code, 'refund_exceeds_received');

  const paid = await invoiceIn(c, 'eth', { amount_usd: 3200.5 }, ['detect'], ['paid']);
  t.is(paid.amount_crypto, '1');
  const rate = paid.rate_snapshot.rate;
  const usd = await refund(c, paid.id, { amount: '320.05', rate_rule: 'fiat_at_payment' });
  t.is(usd.status, 201, JSON.stringify(usd.body));
  t.is(usd.body.rate, rate);
  t.is(usd.body.amount, '0.1');
  const now = await refund(c, paid.id, { amount: '100', rate_rule: 'fiat_now', spread_percent: '10' });
  t.is(now.status, 201, JSON.stringify(now.body));
  t.is(now.body.rate, '3200.5');
  // 100 USD / 3200.5 = 0.031245118... ETH, less 10 %.
  t.is(now.body.amount_units, ((((100n * 10n ** 18n * 10n) / 32005n) * 90n) / 100n).toString());
  t.is(now.body.spread_percent, '10');
});

test('refunding more than received is 422 refund_exceeds_received with the amounts; a pending invoice is not refundable', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  const first = await refund(c, inv.id, { amount: '0.6' });
  t.is(first.status, 201);
  const over = await refund(c, inv.id, { amount: '0.5' });
  t.is(over.status, 422);
  t.is(over.body.error_code, 'refund_exceeds_received');
  t.deepEqual(over.body.details, { received_units: '1000000000000000000', refunded_units: '600000000000000000', requested_units: '500000000000000000' });
  // A cancelled refund no longer counts.
  t.is((await c.call('POST', `/refunds/${first.body.id}/cancel`)).body.status, 'cancelled');
  t.is((await refund(c, inv.id, { amount: '1' })).status, 201);
  const pending = await invoiceIn(c, 'eth', '1');
  const refused = await refund(c, pending.id);
  t.is(refused.status, 422);
  t.is(refused.body.error_code, 'refund_not_refundable');
  const list = await c.call('GET', `/invoices/${inv.id}/refunds`);
  t.deepEqual(
    list.body.items.map((i: any) => i.status),
    ['cancelled', 'awaiting_claim'],
  );
});

test('an Idempotency-Key replay answers the first refund; another body under it is idempotency_key_reused', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  const { signedFetch } = await import('@gw/kernel/testing');
  const send = (body: unknown) =>
    signedFetch(gw.url, `/api/v1/sandbox/invoices/${inv.id}/refunds`, {
      projectId: c.projectId,
      secret: c.secret,
      method: 'POST',
      body,
      headers: { 'Idempotency-Key': 'key-1' },
    });
  const first = await send({ amount: '0.1' });
  t.is(first.status, 201, JSON.stringify(first.body));
  const replay = await send({ amount: '0.1' });
  t.is(replay.status, 200);
  t.is(replay.body.id, first.body.id);
  const other = await send({ amount: '0.2' });
  t.is(other.status, 422);
  t.is(other.body.error_code, 'idempotency_key_reused');
  t.is((await c.call('GET', `/invoices/${inv.id}/refunds`)).body.items.length, 1);
});

test('claims: another network is claim_address_invalid, a mismatch is refused, a second claim is claim_already_made, after approval claim_closed', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'btc', '0.01', ['detect'], ['paid']);
  const created = await refund(c, inv.id, { amount: '0.001' });
  t.is(created.status, 201, JSON.stringify(created.body));
  const token = created.body.claim_url.split('/').pop();
  const claims = gw.kernel.cradle.payoutsClaims;
  const view = await claims.byToken(token);
  t.true(view.open);
  const mainnet = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
  const wrong = await t.throwsAsync(claims.claim(token, { address: mainnet, addressConfirmation: mainnet }));
  t.is((wrong as any).code, 'claim_address_invalid');
  const address = inv.address;
  const mismatch = await t.throwsAsync(claims.claim(token, { address, addressConfirmation: `${address}x` }));
  t.is((mismatch as any).code, 'claim_address_mismatch');
  const claimed = await claims.claim(token, { address, addressConfirmation: address });
  t.like(claimed, { status: 'claimed', address, claim_url: null, address_source: 'claim' });
  t.is(view.item.address_source, null, 'no address, no source before the claim');
  // The claim is audited in its transaction: the address, the claim page's channel, the anonymous holder of the link (never the token).
  const audits = await gw.kernel.cradle.db('kernel_audit_log').where({ target: `refund:${claimed.id}`, action: 'refund.claim' });
  t.is(audits.length, 1);
  t.like(audits[0], { channel: 'claim_page', actor: 'claim-link-holder', project_id: claimed.project_id });
  t.is(audits[0].details.address, address);
  t.false(JSON.stringify(audits[0]).includes(token));
  const second = await t.throwsAsync(claims.claim(token, { address, addressConfirmation: address }));
  t.is((second as any).code, 'claim_already_made');
  const approved = await gw.kernel.cradle.payoutsApprovals.approve(claimed.id, await activeAdmin(c.projectId), {});
  t.is(approved.status, 'approved');
  const closed = await t.throwsAsync(claims.claim(token, { address, addressConfirmation: address }));
  t.is((closed as any).code, 'claim_closed');
  t.deepEqual(await eventTypes(gw, c.projectId, 'refund.'), ['refund.created', 'refund.claimed', 'refund.approved']);
});

test('approval: members, API keys and MCP are approval_forbidden; above the policy two distinct administrators are needed', async (t) => {
  const c = await sandboxClient(gw);
  const { tenancyUsers, tenancyProjects, payoutsApprovals, payoutsItems } = gw.kernel.cradle;
  const project = await tenancyProjects.get(c.projectId);
  const invite = async (role: 'admin' | 'member') => {
    const user = await activeUser(gw, { email: `${role}-${Math.random().toString(36).slice(2)}@example.com`, operator: project.operator_id, role });
    return dashboardApprover({ actor: `user:${user.id}`, channel: 'dashboard' });
  };
  const member = await invite('member');
  const admin1 = await invite('admin');
  const admin2 = await invite('admin');
  await payoutsApprovals.setPolicy(c.projectId, { dualApprovalAboveUsd: '100', claimProofAboveUsd: null }, CLI_ACTOR);

  const { items } = await payoutsItems.createPayouts(
    c.projectId,
    [{ address: '0x00000000000000000000000000000000000000a1', coin: 'eth', amount: '1', reference: 'aff-1' }],
    CLI_ACTOR,
  );
  const payout = items[0]!;
  t.like(payout, { status: 'pending_approval', approvals_required: 2, amount_usd: '3200.50' });
  for (const actor of [member, { actor: 'api_key:x', channel: 'rest', kind: 'user' } as const, { actor: 'pat:x', channel: 'mcp' } as any]) {
    const refused = await t.throwsAsync(payoutsApprovals.approve(payout.id, actor, {}));
    t.is((refused as any).code, 'approval_forbidden');
  }
  const once = await payoutsApprovals.approve(payout.id, admin1, {});
  t.like(once, { status: 'pending_approval' });
  t.is(once.approvals.length, 1);
  const twice = await t.throwsAsync(payoutsApprovals.approve(payout.id, admin1, {}));
  t.is((twice as any).code, 'approval_already_given');
  // The same person at the CLI (`--as`) is the same approver.
  const admin1User = await tenancyUsers.find(admin1.actor.slice('user:'.length));
  const sameAtCli = await t.throwsAsync(payoutsApprovals.approve(payout.id, await cliApprover(tenancyUsers, admin1User!.email), {}));
  t.is((sameAtCli as any).code, 'approval_already_given');
  // The CLI names an active administrator, never a member.
  const memberUser = await tenancyUsers.find(member.actor.slice('user:'.length));
  t.is(((await t.throwsAsync(cliApprover(tenancyUsers, memberUser!.email))) as any).code, 'approval_forbidden');
  // An approval counts only while its administrator still is one: admin1 demoted, admin2's is then the only one.
  await tenancyUsers.setRole(admin1User!.id, 'member', CLI_ACTOR);
  const notYet = await payoutsApprovals.approve(payout.id, admin2, {});
  t.like(notYet, { status: 'pending_approval' });
  await tenancyUsers.setRole(admin1User!.id, 'admin', CLI_ACTOR);
  const admin3 = await invite('admin');
  const done = await payoutsApprovals.approve(payout.id, admin3, {});
  t.is(done.status, 'approved');
  t.deepEqual(await eventTypes(gw, c.projectId, 'payout.'), ['payout.created', 'payout.approved']);
  // A partner can no longer cancel it; an administrator can.
  t.is((await c.call('POST', `/payouts/${payout.id}/cancel`)).body.error_code, 'item_not_cancellable');
  t.is((await payoutsApprovals.cancel(payout.id, CLI_ACTOR, {})).status, 'cancelled');
});

test('fiat_now without an amount values what came at payment rounded down, so it never asks more than remains', async (t) => {
  // 1009 sat at 60000 USD is 0.6054 USD: half-up 0.61 would be 1016 sat, more than was received.
  const basis = { status: 'paid', decimals: 8, invoicedUnits: 1009n, receivedUnits: 1009n, refundedUnits: 0n, paymentRate: '60000' };
  t.deepEqual(await refundAmount(basis, { rateRule: 'fiat_now' }, async () => '60000'), { units: 1000n, rate: '60000' });
});

test('concurrent refunds under one Idempotency-Key for all that was received: the second answers the first, not refund_exceeds_received', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  const { signedFetch } = await import('@gw/kernel/testing');
  const send = () =>
    signedFetch(gw.url, `/api/v1/sandbox/invoices/${inv.id}/refunds`, {
      projectId: c.projectId,
      secret: c.secret,
      method: 'POST',
      body: { amount: '1' },
      headers: { 'Idempotency-Key': 'race-refund' },
    });
  const answers = await Promise.all([send(), send(), send()]);
  t.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 201], JSON.stringify(answers.map((a) => a.body)));
  t.is(new Set(answers.map((a) => a.body.id)).size, 1);
});

test('metadata is capped at 16 KB per refund and per payout recipient, as for invoices: 400 validation_error, nothing written', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  const big = { note: 'x'.repeat(16_400) };
  const refused = await refund(c, inv.id, { amount: '0.1', metadata: big });
  t.is(refused.status, 400, JSON.stringify(refused.body));
  t.like(refused.body, { error_code: 'validation_error', details: { field: 'metadata' } });
  t.is((await c.call('GET', `/invoices/${inv.id}/refunds`)).body.items.length, 0);
  t.is((await refund(c, inv.id, { amount: '0.1', metadata: { note: 'x'.repeat(16_000) } })).status, 201);
  const recipients = [
    { address: inv.address, coin: 'eth', amount: '0.1', reference: 'meta-1' },
    { address: inv.address, coin: 'eth', amount: '0.1', reference: 'meta-2', metadata: big },
  ];
  const payouts = await c.call('POST', '/payouts', { recipients });
  t.is(payouts.status, 400, JSON.stringify(payouts.body));
  t.like(payouts.body, { error_code: 'validation_error', details: { field: 'metadata', index: 1 } });
  t.is((await c.call('GET', '/payouts')).body.items.length, 0);
});

test('thresholds value a refund at today’s quote, not the payment’s rate; an unknown value requires a proof and two approvals', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  // The coin was worth 1 USD when the invoice was priced; today's quote is the fixed 3200.5.
  await gw.kernel.cradle
    .db('invoices_invoices')
    .where({ id: inv.id })
    .update({ rate_snapshot: { ...inv.rate_snapshot, rate: '1' } });
  await gw.kernel.cradle.payoutsApprovals.setPolicy(c.projectId, { dualApprovalAboveUsd: '100', claimProofAboveUsd: '100' }, CLI_ACTOR);
  const created = await refund(c, inv.id, { amount: '0.1' });
  t.is(created.status, 201, JSON.stringify(created.body));
  // 0.1 ETH: 0.10 USD at the payment's rate, 320.05 USD today.
  t.like(created.body, { claim_requires_proof: true, approvals_required: 2 });
  const policies = gw.kernel.cradle.payoutsPolicies;
  const policy = { dualApprovalAboveUsd: '100', claimProofAboveUsd: '100' };
  t.true(policies.claimNeedsProof(policy, null), 'an unknown value needs a proof');
  t.false(policies.claimNeedsProof(policy, '99.99'));
  t.is(policies.approvalsRequired(policy, null), 2);
});

test('a caller’s write in the create’s transaction: it sees the refund, commits with it, and its throw refuses the create whole', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  const { payoutsItems } = gw.kernel.cradle;
  const partner = { actor: `api_key:${c.projectId}`, channel: 'rest' } as const;
  const refused = await t.throwsAsync(
    payoutsItems.createRefund({ projectId: c.projectId, invoiceId: inv.id, amount: '0.1' }, partner, {
      inTransaction: async (trx, item) => {
        t.is((await trx('payouts_items').where({ id: item.id }).first()).status, 'awaiting_claim');
        throw new Error('the caller refuses');
      },
    }),
  );
  t.is(refused.message, 'the caller refuses');
  t.deepEqual(await payoutsItems.refundsOf(c.projectId, inv.id), [], 'neither the refund nor its events were written');
  t.deepEqual(await eventTypes(gw, c.projectId, 'refund.'), []);
  let seen: string | undefined;
  const { item } = await payoutsItems.createRefund({ projectId: c.projectId, invoiceId: inv.id, amount: '0.1', idempotencyKey: 'k-1' }, partner, {
    inTransaction: async (_trx, view) => {
      seen = view.id;
    },
  });
  t.is(seen, item.id);
  seen = undefined;
  const replay = await payoutsItems.createRefund({ projectId: c.projectId, invoiceId: inv.id, amount: '0.1', idempotencyKey: 'k-1' }, partner, {
    inTransaction: async (_trx, view) => {
      seen = view.id;
    },
  });
  t.false(replay.created);
  t.is(seen, undefined, 'a replay does not run it');
});

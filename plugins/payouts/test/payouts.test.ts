import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch } from '@gw/kernel/testing';
import type { PlanStatusChange } from '@gw/plugin-treasury/contract';
import { payoutPlanObserver, simulatedTxid } from '../src/index.js';
import { invoiceIn, sandboxClient, startPayoutsKernel } from './helpers.js';
import { eventTypes } from '@gw/testing';

let gw: TestKernel;
test.before(async () => {
  gw = await startPayoutsKernel();
});
test.after.always(async () => {
  await gw?.close();
});

const EVM = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;

test('payouts: all or none, an invalid address names its index, references answer replays and refuse conflicts; list and cancel', async (t) => {
  const c = await sandboxClient(gw);
  const bad = await c.call('POST', '/payouts', {
    recipients: [
      { address: EVM(1), coin: 'eth', amount: '0.1', reference: 'p-1' },
      { address: 'not-an-address', coin: 'eth', amount: '0.1', reference: 'p-2' },
    ],
  });
  t.is(bad.status, 422);
  t.is(bad.body.error_code, 'payout_address_invalid');
  t.is(bad.body.details.index, 1);
  t.deepEqual((await c.call('GET', '/payouts')).body.items, [], 'nothing was written');

  const body = {
    recipients: [
      { address: EVM(1), coin: 'eth', amount: '0.1', reference: 'p-1', metadata: { user: 7 } },
      { address: EVM(2), coin: 'eth', amount: '0.2', reference: 'p-2' },
    ],
  };
  const created = await c.call('POST', '/payouts', body);
  t.is(created.status, 201, JSON.stringify(created.body));
  t.deepEqual(
    created.body.items.map((i: any) => [i.reference, i.status, i.amount, i.object]),
    [
      ['p-1', 'pending_approval', '0.1', 'payout'],
      ['p-2', 'pending_approval', '0.2', 'payout'],
    ],
  );
  const replay = await c.call('POST', '/payouts', body);
  t.is(replay.status, 200);
  t.deepEqual(
    replay.body.items.map((i: any) => i.id),
    created.body.items.map((i: any) => i.id),
  );
  const conflict = await c.call('POST', '/payouts', { recipients: [{ address: EVM(3), coin: 'eth', amount: '0.1', reference: 'p-1' }] });
  t.is(conflict.status, 409);
  t.is(conflict.body.error_code, 'payout_reference_conflict');
  t.like(conflict.body.details, { index: 0, reference: 'p-1', reason: 'different_recipient', payout_id: created.body.items[0].id });
  const mixed = await c.call('POST', '/payouts', {
    recipients: [body.recipients[1], { address: EVM(4), coin: 'eth', amount: '0.1', reference: 'p-new' }],
  });
  t.is(mixed.status, 409);
  t.like(mixed.body, {
    error_code: 'payout_reference_conflict',
    details: { index: 1, reference: 'p-new', reason: 'mixed_with_existing', existing_references: ['p-2'] },
  });
  t.regex(mixed.body.message, /p-new/);

  const page = await c.call('GET', '/payouts?limit=1');
  t.is(page.body.items.length, 1);
  t.is(page.body.items[0].reference, 'p-2');
  const next = await c.call('GET', `/payouts?limit=1&cursor=${page.body.next_cursor}`);
  t.is(next.body.items[0].reference, 'p-1');
  const cancelled = await c.call('POST', `/payouts/${created.body.items[0].id}/cancel`);
  t.is(cancelled.body.status, 'cancelled');
  t.is((await c.call('GET', '/payouts?status=pending_approval')).body.items.length, 1);
  t.is((await c.call('GET', `/payouts/${created.body.items[0].id}`)).body.status, 'cancelled');
  t.is((await c.call('GET', `/refunds/${created.body.items[0].id}`)).status, 404);
});

test('sandbox simulations walk a refund created → claimed → approved → sent → completed with its events in order; invalid moves are 409', async (t) => {
  const c = await sandboxClient(gw);
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['overpaid', { extraUnits: '1000' }]);
  const created = await c.call('POST', `/invoices/${inv.id}/refunds`, {});
  t.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id;
  // The signed answer carries the claim link; the webhook event (delivered to a URL, stored, retried) never does.
  t.regex(created.body.claim_url, /\/refunds\/claim\//);
  t.is((await c.call('GET', `/refunds/${id}`)).body.claim_url, created.body.claim_url);
  const createdEvent = await gw.kernel.cradle.db('webhooks_events').where({ project_id: c.projectId, event_type: 'refund.created' }).first();
  const createdData = JSON.parse(createdEvent.body).data;
  t.is(createdData.refund.id, id);
  t.is(createdData.refund.claim_url, null);
  t.false(createdEvent.body.includes(created.body.claim_url.split('/').pop()), 'no trace of the claim token in the event');
  const sim = (what: string, body?: unknown) => c.call('POST', `/refunds/${id}/simulate-${what}`, body ?? {});
  t.is((await sim('send')).body.error_code, 'item_transition_invalid');
  const claimed = await sim('claim');
  t.is(claimed.status, 200, JSON.stringify(claimed.body));
  t.is(claimed.body.address, inv.address);
  t.is((await sim('approve')).body.status, 'approved');
  const sent = await sim('send');
  t.like(sent.body, { status: 'sent', txid: simulatedTxid(id) });
  t.is((await sim('confirm')).body.status, 'completed');
  t.deepEqual(await eventTypes(gw, c.projectId, 'refund.'), ['refund.created', 'refund.claimed', 'refund.approved', 'refund.sent', 'refund.completed']);
  const event = await gw.kernel.cradle.db('webhooks_events').where({ project_id: c.projectId, event_type: 'refund.completed' }).first();
  const envelope = JSON.parse(event.body);
  t.like(envelope.data, { refund_id: id, invoice_id: inv.id, status: 'completed', previous_status: 'sent' });
  t.is(envelope.data.refund.status, 'completed');

  const payout = await c.call('POST', '/payouts', { recipients: [{ address: EVM(9), coin: 'eth', amount: '0.5', reference: 'sim-1' }] });
  const pid = payout.body.items[0].id;
  t.is((await c.call('POST', `/payouts/${pid}/simulate-claim`)).status, 404, 'payouts have no claim');
  t.is((await c.call('POST', `/payouts/${pid}/simulate-approve`)).body.status, 'approved');
  t.is((await c.call('POST', `/payouts/${pid}/simulate-fail`)).body.status, 'failed');
  t.deepEqual(await eventTypes(gw, c.projectId, 'payout.'), ['payout.created', 'payout.approved', 'payout.failed']);
});

test('concurrent payout requests under one Idempotency-Key: one is written, the other is a replay or idempotency_key_reused', async (t) => {
  const c = await sandboxClient(gw);
  const send = (reference: string) =>
    signedFetch(gw.url, '/api/v1/sandbox/payouts', {
      projectId: c.projectId,
      secret: c.secret,
      method: 'POST',
      body: { recipients: [{ address: EVM(5), coin: 'eth', amount: '0.1', reference }] },
      headers: { 'Idempotency-Key': 'race-1' },
    });
  const answers = await Promise.all([send('race-a'), send('race-b')]);
  t.deepEqual(answers.map((a) => a.status).sort(), [201, 422], JSON.stringify(answers.map((a) => a.body)));
  t.is(answers.find((a) => a.status === 422)!.body.error_code, 'idempotency_key_reused');
  t.is((await c.call('GET', '/payouts')).body.items.length, 1);
});

test('sandbox: a batch is refused (no treasury plan), and simulations do not start from batched', async (t) => {
  const c = await sandboxClient(gw);
  const payout = await c.call('POST', '/payouts', { recipients: [{ address: EVM(6), coin: 'eth', amount: '0.1', reference: 'sb-batch' }] });
  const id = payout.body.items[0].id;
  t.is((await c.call('POST', `/payouts/${id}/simulate-approve`)).body.status, 'approved');
  const item = payout.body.items[0];
  const refused = await t.throwsAsync(
    gw.kernel.cradle.payoutsBatches.create(
      { projectId: c.projectId, chain: item.chain, network: item.network, coin: 'eth', source: { kind: 'funding' } as any },
      CLI_ACTOR,
      {},
    ),
  );
  t.is((refused as any).code, 'batch_empty');
  t.like((refused as any).details, { project_kind: 'sandbox' });
  t.is((await c.call('GET', `/payouts/${id}`)).body.status, 'approved', 'nothing was batched');
  await gw.kernel.cradle.db('payouts_items').where('id', id).update({ status: 'batched', plan_id: 'no-plan' });
  for (const what of ['send', 'fail']) t.is((await c.call('POST', `/payouts/${id}/simulate-${what}`)).body.error_code, 'item_transition_invalid');
});

/** Items of a fresh project put in `status` under plan `planId` (as a real batch leaves them), and the observer's answer to `change`. */
async function observed(statuses: string[], planId: string, change: (ids: string[]) => Omit<PlanStatusChange, 'planId' | 'kind' | 'chain' | 'network'>) {
  const c = await sandboxClient(gw);
  const created = await c.call('POST', '/payouts', {
    recipients: statuses.map((_, n) => ({ address: EVM(100 + n), coin: 'eth', amount: '0.1', reference: `obs-${planId}-${n}` })),
  });
  const ids: string[] = created.body.items.map((i: any) => i.id);
  const { db, payoutsStore } = gw.kernel.cradle;
  for (const [n, id] of ids.entries()) {
    await db('payouts_items')
      .where('id', id)
      .update({ status: statuses[n], plan_id: planId, txid: statuses[n] === 'sent' ? `tx-${n}` : null });
  }
  const observer = payoutPlanObserver(() => payoutsStore);
  const tell = (more: (ids: string[]) => Omit<PlanStatusChange, 'planId' | 'kind' | 'chain' | 'network'>) =>
    db.transaction((trx) => observer.onStatus(trx, { planId, kind: 'payout', chain: 'eth', network: 'sepolia', ...more(ids) } as PlanStatusChange));
  await tell(change);
  const rows = async () => (await db('payouts_items').whereIn('id', ids).orderBy('id')).map((r: any) => [r.status, r.plan_id, r.failure_reason]);
  return { ids, tell, rows };
}

test('observer: a failed account plan leaves a recipient whose transfer is pending sent; the repeated failed completes or fails it', async (t) => {
  const plan = `plan-h1-${Date.now()}`;
  const pending = (ids: string[], outcome: 'pending' | 'confirmed' | 'failed') => ({
    previousStatus: 'broadcast' as const,
    status: 'failed' as const,
    reason: 'step 3 refused',
    recipients: [
      { reference: ids[0]!, txid: 'tx-0', outcome },
      { reference: ids[1]!, txid: null, outcome: 'failed' as const, reason: 'never sent' },
      { reference: ids[2]!, txid: 'tx-2', outcome: 'pending' as const },
    ],
  });
  const { tell, rows } = await observed(['sent', 'batched', 'batched'], plan, (ids) => pending(ids, 'pending'));
  t.deepEqual(await rows(), [
    ['sent', plan, null],
    ['failed', plan, 'never sent'],
    ['sent', plan, null],
  ]);
  await tell((ids) => ({ ...pending(ids, 'confirmed'), previousStatus: 'failed' }));
  t.deepEqual(
    (await rows()).map((r) => r[0]),
    ['completed', 'failed', 'sent'],
  );
});

test('observer: an invalidated plan fails its sent items (their transaction went out) and gives batched ones back to approved', async (t) => {
  const plan = `plan-h3-${Date.now()}`;
  const { rows } = await observed(['sent', 'batched'], plan, () => ({ previousStatus: 'broadcast', status: 'invalidated', reason: 'input spent' }));
  t.deepEqual(await rows(), [
    ['failed', plan, "the transaction's input was spent by another transaction"],
    ['approved', null, null],
  ]);
});

test('a sandbox reset purges the project’s refunds, payouts, approvals and policy in its transaction; a delete too', async (t) => {
  const c = await sandboxClient(gw);
  const { db, sandboxProjects, payoutsApprovals } = gw.kernel.cradle;
  const inv = await invoiceIn(c, 'eth', '1', ['detect'], ['paid']);
  const refund = await c.call('POST', `/invoices/${inv.id}/refunds`, { amount: '0.1' });
  t.is(refund.status, 201, JSON.stringify(refund.body));
  const payout = await c.call('POST', '/payouts', { recipients: [{ address: inv.address, coin: 'eth', amount: '0.2', reference: 'reset-1' }] });
  t.is(payout.status, 201, JSON.stringify(payout.body));
  await payoutsApprovals.setPolicy(c.projectId, { dualApprovalAboveUsd: '10', claimProofAboveUsd: null }, CLI_ACTOR);
  await db('payouts_approvals').insert({ item_id: payout.body.items[0].id, user_id: 'someone', created_at: new Date() });
  const rows = async (table: string, column = 'project_id') => Number((await db(table).where(column, c.projectId).count({ n: '*' }))[0]!.n);
  t.is(await rows('payouts_items'), 2);

  await sandboxProjects.reset(c.projectId, CLI_ACTOR);
  t.is(await rows('payouts_items'), 0, 'no refund or payout of the project is left');
  t.is(await rows('payouts_policies'), 0);
  t.is(Number((await db('payouts_approvals').where('item_id', payout.body.items[0].id).count({ n: '*' }))[0]!.n), 0);
  const audit = await db('kernel_audit_log').where({ project_id: c.projectId, action: 'sandbox.reset' }).first();
  t.like(audit.details, { refunds_and_payouts: 2 });
  // The same reference is free again.
  t.is((await c.call('POST', '/payouts', { recipients: [{ address: inv.address, coin: 'eth', amount: '0.2', reference: 'reset-1' }] })).status, 201);

  await sandboxProjects.delete(c.projectId, CLI_ACTOR);
  t.is(await rows('payouts_items'), 0, 'a deleted project leaves no payouts rows');
});

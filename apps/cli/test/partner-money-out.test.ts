/**
 * The partner commands of refunds and payouts (`gateway refunds|payouts ...`, `gateway trigger
 * refund.*|payout.*`) against a real gateway with workers and every plugin of this build: the
 * commands answer what the API does, and triggered events reach the project's webhook signed.
 */
import test from 'ava';
import { verifyWebhook } from '@gw/client';
import { waitFor } from '@gw/kernel/testing';
import { partnerGateway } from './partner-gateway.js';

const g = partnerGateway(test, 'gw-partner-money-out-');

/** A sandbox invoice of `coin`, paid 1.5 times its amount (when `overpaid`). */
async function invoice(label: string, overpaid: boolean): Promise<{ id: string; address: string }> {
  const created = await g.account.call('POST', '/invoices', { external_id: `${label}-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' });
  if (overpaid) {
    await g.account.call('POST', `/invoices/${created.body.id}/simulate-detect`, {});
    const paid = await g.account.call('POST', `/invoices/${created.body.id}/simulate-overpaid`, { multiplier: 1.5 });
    if (paid.status !== 200) throw new Error(JSON.stringify(paid.body));
  }
  return created.body;
}

/** The delivery of the project's webhook whose event is `eventType` about `id`, verified with the project's secret. */
async function delivered(eventType: string, idField: string, id: string) {
  const delivery = await waitFor(
    async () =>
      g.receiver.requests.find((r) => {
        const body = JSON.parse(r.body);
        return body.event_type === eventType && body.data?.[idField] === id;
      }),
    20_000,
    `the ${eventType} delivery`,
  );
  const header = delivery.headers['x-service-signature'] as string;
  return {
    event: JSON.parse(delivery.body),
    verified: await verifyWebhook({ header, rawBody: delivery.body, secrets: [g.account.secret] }),
    body: delivery.body,
    header,
  };
}

test('refunds create, list (project and invoice), get, cancel; errors exit 1 with the error code', async (t) => {
  const paid = await invoice('cli-refund', true);
  const created = await g.partner('refunds', 'create', paid.id, '--reason', 'excess', '--idempotency-key', `k-${paid.id}`, '--json');
  t.is(created.code, 0, created.stderr);
  t.is(created.json.object, 'refund');
  t.is(created.json.invoice_id, paid.id);
  t.is(created.json.status, 'awaiting_claim');
  t.is(created.json.amount, '0.005');
  const replay = await g.partner('refunds', 'create', paid.id, '--reason', 'excess', '--idempotency-key', `k-${paid.id}`, '--json');
  t.is(replay.json.id, created.json.id, 'the same key answers the first refund');

  const listed = await g.partner('refunds', 'list', '--json');
  t.is(listed.code, 0, listed.stderr);
  t.true(listed.json.items.some((r: { id: string }) => r.id === created.json.id));
  const ofInvoice = await g.partner('refunds', 'list', '--invoice', paid.id, '--json');
  t.deepEqual(
    ofInvoice.json.items.map((r: { id: string }) => r.id),
    [created.json.id],
  );
  t.is((await g.partner('refunds', 'get', created.json.id, '--json')).json.reason, 'excess');
  const cancelled = await g.partner('refunds', 'cancel', created.json.id, '--json');
  t.is(cancelled.code, 0, cancelled.stderr);
  t.is(cancelled.json.status, 'cancelled');
  const cancelledList = await g.partner('refunds', 'list', '--status', 'cancelled', '--json');
  t.deepEqual(
    cancelledList.json.items.map((r: { id: string }) => r.id),
    [created.json.id],
  );

  const exceeding = await g.partner('refunds', 'create', paid.id, '--amount', '5', '--json');
  t.is(exceeding.code, 1);
  t.is(exceeding.json.error_code, 'refund_exceeds_received');
  const badStatus = await g.partner('refunds', 'list', '--status', 'nope');
  t.is(badStatus.code, 2);
  t.regex(badStatus.stderr, /--status must be one of/);
});

test('payouts create (two recipients by --data, one by flags), list, get, cancel', async (t) => {
  const [a, b, c] = [await invoice('cli-payout-a', false), await invoice('cli-payout-b', false), await invoice('cli-payout-c', false)];
  const data = JSON.stringify([
    { address: a.address, coin: 'eth', amount: '0.002', reference: `a-${a.id}` },
    { address: b.address, coin: 'eth', amount: '0.003', reference: `b-${b.id}`, reason: 'fees' },
  ]);
  const created = await g.partner('payouts', 'create', '--data', data, '--idempotency-key', `p-${a.id}`, '--json');
  t.is(created.code, 0, created.stderr);
  t.is(created.json.items.length, 2);
  t.deepEqual(
    created.json.items.map((p: { address: string; status: string }) => [p.address, p.status]),
    [
      [a.address, 'pending_approval'],
      [b.address, 'pending_approval'],
    ],
  );
  const single = await g.partner('payouts', 'create', '--address', c.address, '--coin', 'eth', '--amount', '0.001', '--reference', `c-${c.id}`, '--json');
  t.is(single.code, 0, single.stderr);
  t.is(single.json.items[0].amount, '0.001');

  const listed = await g.partner('payouts', 'list', '--limit', '10', '--json');
  t.deepEqual(listed.json.items.map((p: { id: string }) => p.id).sort(), [...created.json.items, ...single.json.items].map((p: { id: string }) => p.id).sort());
  t.is((await g.partner('payouts', 'get', single.json.items[0].id, '--json')).json.reference, `c-${c.id}`);
  const cancelled = await g.partner('payouts', 'cancel', created.json.items[1].id, '--json');
  t.is(cancelled.code, 0, cancelled.stderr);
  t.is(cancelled.json.status, 'cancelled');
  // An approved payout: a different request from the cancel above (an identical signed copy within
  // the same second would answer the first copy's answer, docs/decisions.md).
  t.is((await g.account.call('POST', `/payouts/${single.json.items[0].id}/simulate-approve`)).status, 200);
  const approved = await g.partner('payouts', 'cancel', single.json.items[0].id, '--json');
  t.is(approved.code, 1, approved.stdout);
  t.is(approved.json.error_code, 'item_not_cancellable');
  const incomplete = await g.partner('payouts', 'create', '--address', c.address);
  t.is(incomplete.code, 2);
});

test('trigger refund.completed and payout.failed: the events reach the project webhook, signed with its secret', async (t) => {
  const refund = await g.partner('trigger', 'refund.completed', '--json');
  t.is(refund.code, 0, refund.stderr);
  t.is(refund.json.status, 'completed');
  t.deepEqual(
    refund.json.steps.map((s: { step: string }) => s.step),
    ['invoice', 'detect', 'overpaid', 'create', 'claim', 'approve', 'send', 'confirm'],
  );
  const completed = await delivered('refund.completed', 'refund_id', refund.json.refund_id);
  t.true(completed.verified.ok);
  t.is(completed.event.data.invoice_id, refund.json.invoice_id);
  t.is(completed.event.data.refund.status, 'completed');
  t.false((await verifyWebhook({ header: completed.header, rawBody: `${completed.body} `, secrets: [g.account.secret] })).ok, 'a changed body does not verify');

  const payout = await g.partner('trigger', 'payout.failed');
  t.is(payout.code, 0, payout.stderr);
  const id = /payout.failed for payout ([0-9A-Z]{26})/.exec(payout.stdout)?.[1];
  t.truthy(id, payout.stdout);
  const failed = await delivered('payout.failed', 'payout_id', id!);
  t.true(failed.verified.ok);
  t.is(failed.event.data.payout.status, 'failed');
  t.is(failed.event.data.previous_status, 'sent');
});

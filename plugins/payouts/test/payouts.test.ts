import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { simulatedTxid } from '../src/index.js';
import { eventTypes, invoiceIn, sandboxClient, startPayoutsKernel } from './helpers.js';

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
  t.is(bad.body.error.code, 'payout_address_invalid');
  t.is(bad.body.error.details.index, 1);
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
  t.is(conflict.body.error.code, 'payout_reference_conflict');

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
  const inv = await invoiceIn(c, 'eth', '1', ['overpaid', { extraUnits: '1000' }]);
  const created = await c.call('POST', `/invoices/${inv.id}/refunds`, {});
  t.is(created.status, 201, JSON.stringify(created.body));
  const id = created.body.id;
  const sim = (what: string, body?: unknown) => c.call('POST', `/refunds/${id}/simulate-${what}`, body ?? {});
  t.is((await sim('send')).body.error.code, 'item_transition_invalid');
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

/**
 * The refunds, payouts and money-out simulations of @gw/client (built, dist/esm) against a real
 * gateway with every plugin of this build on a test database: a sandbox partner's refund from an
 * overpaid invoice to completed, payouts to two recipients, and the typed errors of refusals.
 */
import test from 'ava';
import { builtClientFixture } from './built-client-fixture.js';

const f = builtClientFixture(test);

test('a refund of an overpaid sandbox invoice: created once per idempotency key, listed, retrieved, cancelled, and walked to completed', async (t) => {
  const { sandbox } = f.client();
  const invoice = await sandbox.invoices.create({ external_id: `refund-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' });
  await sandbox.simulate.detect(invoice.id);
  await sandbox.simulate.overpaid(invoice.id, { multiplier: 1.5 });

  const first = await sandbox.refunds.createWithStatus(invoice.id, { reason: 'excess' }, { idempotencyKey: `r-${invoice.id}` });
  t.true(first.created);
  const refund = first.refund;
  t.is(refund.object, 'refund');
  t.is(refund.invoice_id, invoice.id);
  t.is(refund.status, 'awaiting_claim');
  t.is(refund.coin, 'eth');
  t.is(refund.amount, '0.005', 'the natural amount: the excess');
  t.regex(refund.claim_url ?? '', /\/refunds\/claim\//);
  const replay = await sandbox.refunds.createWithStatus(invoice.id, { reason: 'excess' }, { idempotencyKey: `r-${invoice.id}` });
  t.false(replay.created, 'a replay answers 200');
  t.deepEqual(replay.refund, refund);
  const reused = await t.throwsAsync(sandbox.refunds.create(invoice.id, { reason: 'other' }, { idempotencyKey: `r-${invoice.id}` }), {
    instanceOf: f.sdk.GatewayError,
  });
  t.is(reused.errorCode, 'idempotency_key_reused');
  t.is(reused.status, 422);

  const exceeding = await t.throwsAsync(sandbox.refunds.create(invoice.id, { amount: '1' }), { instanceOf: f.sdk.GatewayError });
  t.is(exceeding.errorCode, 'refund_exceeds_received');
  t.is(exceeding.status, 422);
  t.truthy((exceeding.details as Record<string, unknown>)['received_units']);

  const second = await sandbox.refunds.create(invoice.id, { amount: '0.001', reference: 'second' });
  t.deepEqual(
    (await sandbox.refunds.listForInvoice(invoice.id)).items.map((r) => r.id),
    [refund.id, second.id],
  );
  const page = await sandbox.refunds.list({ limit: 1 });
  t.is(page.items.length, 1);
  t.truthy(page.next_cursor);
  const all: string[] = [];
  for await (const item of sandbox.refunds.iterate({ limit: 1 })) all.push(item.id);
  t.deepEqual(all.sort(), [refund.id, second.id].sort());
  t.is((await sandbox.refunds.retrieve(second.id)).reference, 'second');
  t.is((await sandbox.refunds.cancel(second.id)).status, 'cancelled');
  t.deepEqual(
    (await sandbox.refunds.list({ status: 'cancelled' })).items.map((r) => r.id),
    [second.id],
  );
  const missing = await t.throwsAsync(sandbox.refunds.retrieve('01ARZ3NDEKTSV4RRFFQ69G5FAV'), { instanceOf: f.sdk.GatewayError });
  t.is(missing.errorCode, 'refund_not_found');
  t.is(missing.status, 404);

  const claimed = await sandbox.simulate.refund(refund.id, 'claim');
  t.is(claimed.status, 'claimed');
  t.is(claimed.address, invoice.address);
  t.is((await sandbox.simulate.refund(refund.id, 'approve')).status, 'approved');
  const notCancellable = await t.throwsAsync(sandbox.refunds.cancel(refund.id), { instanceOf: f.sdk.GatewayError });
  t.is(notCancellable.errorCode, 'item_not_cancellable');
  t.is(notCancellable.status, 409);
  const sent = await sandbox.simulate.refund(refund.id, 'send');
  t.is(sent.status, 'sent');
  t.regex(sent.txid ?? '', /^[0-9a-f]{64}$/);
  const completed = await sandbox.simulate.refund(refund.id, 'confirm');
  t.is(completed.status, 'completed');
  t.truthy(completed.completed_at_iso);
  const invalid = await t.throwsAsync(sandbox.simulate.refund(refund.id, 'send'), { instanceOf: f.sdk.GatewayError });
  t.is(invalid.errorCode, 'item_transition_invalid');
  t.is(invalid.status, 409);
});

test('payouts to two recipients: created, listed, retrieved, cancelled, and simulated approved, sent and failed', async (t) => {
  const { sandbox } = f.client();
  const a = await sandbox.invoices.create({ external_id: `payout-a-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' });
  const b = await sandbox.invoices.create({ external_id: `payout-b-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' });
  const recipients = [
    { address: a.address, coin: 'eth', amount: '0.002', reference: `p-a-${a.id}`, reason: 'settlement' },
    { address: b.address, coin: 'eth', amount: '0.003', reference: `p-b-${b.id}`, metadata: { seller: 7 } },
  ];
  const first = await sandbox.payouts.createWithStatus(recipients, { idempotencyKey: `p-${a.id}` });
  t.true(first.created);
  t.is(first.items.length, 2);
  const [one, two] = first.items;
  t.is(one!.object, 'payout');
  t.is(one!.invoice_id, null);
  t.is(one!.status, 'pending_approval');
  t.is(one!.address, a.address);
  t.is(two!.amount, '0.003');
  t.deepEqual(two!.metadata, { seller: 7 });
  const replay = await sandbox.payouts.createWithStatus(recipients, { idempotencyKey: `p-${a.id}` });
  t.false(replay.created);
  t.deepEqual(
    replay.items.map((p) => p.id),
    [one!.id, two!.id],
  );

  const listed = await sandbox.payouts.list();
  t.deepEqual(listed.items.map((p) => p.id).sort(), [one!.id, two!.id].sort());
  const iterated: string[] = [];
  for await (const p of sandbox.payouts.iterate({ limit: 1 })) iterated.push(p.id);
  t.deepEqual(iterated.sort(), [one!.id, two!.id].sort());
  t.is((await sandbox.payouts.retrieve(one!.id)).reference, `p-a-${a.id}`);
  t.is((await sandbox.payouts.cancel(two!.id)).status, 'cancelled');

  t.is((await sandbox.simulate.payout(one!.id, 'approve')).status, 'approved');
  t.is((await sandbox.simulate.payout(one!.id, 'send')).status, 'sent');
  const failed = await sandbox.simulate.payout(one!.id, 'fail');
  t.is(failed.status, 'failed');
  t.truthy(failed.failure_reason);

  const conflict = await t.throwsAsync(sandbox.payouts.create([{ ...recipients[0]!, amount: '0.009' }]), { instanceOf: f.sdk.GatewayError });
  t.is(conflict.errorCode, 'payout_reference_conflict');
  t.is(conflict.status, 409);
  const badAddress = await t.throwsAsync(sandbox.payouts.create([{ address: 'not-an-address', coin: 'eth', amount: '0.001', reference: 'bad' }]), {
    instanceOf: f.sdk.GatewayError,
  });
  t.is(badAddress.errorCode, 'payout_address_invalid');
  t.is(badAddress.status, 422);
  const missing = await t.throwsAsync(sandbox.payouts.retrieve('01ARZ3NDEKTSV4RRFFQ69G5FAV'), { instanceOf: f.sdk.GatewayError });
  t.is(missing.errorCode, 'payout_not_found');
});

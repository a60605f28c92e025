import test from 'ava';
import { CLI_ACTOR, newId, type MoneyOutEvent } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook, type WebhookEnvelope } from '@gw/webhook-verify';
import { stopAll } from '@gw/testing';
import { projectWithPools, Receiver, startWebhooksKernel, type TestProject } from './helpers.js';

// Refund and payout events (issue 37) go through the same outbox as invoice events: stored,
// signed, delivered, listed and resent the same way. The payouts plugin produces them; here they
// are emitted through the kernel's event sink as it does, in the transaction of a change.

let gw: TestKernel, receiver: Receiver, project: TestProject;
test.before(async () => {
  gw = await startWebhooksKernel();
  receiver = await Receiver.start();
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('webhooks-money-out', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  await gw.kernel.cradle.tenancyProjects.setWebhookUrl(project.projectId, `${receiver.url}/hooks/default`, CLI_ACTOR);
});
test.after.always(() => stopAll(gw, receiver));

async function invoiceWithCallback(path: string): Promise<{ id: string; callbackUrl: string }> {
  const callbackUrl = `${receiver.url}${path}`;
  const body = { external_id: `refund-${newId()}`, amount_crypto: '0.01', coin: 'eth', callback_url: callbackUrl };
  const created = await signedFetch(gw.url, '/api/v1/invoices', { ...project, method: 'POST', body });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return { id: created.body.id, callbackUrl };
}

function emit(event: MoneyOutEvent): Promise<string> {
  return gw.kernel.cradle.db.transaction(async (trx) => (await gw.kernel.cradle.invoiceEvents.emit(trx, [event]))[0]!);
}

async function delivered(eventId: string) {
  const [request] = await waitFor(async () => receiver.forEvent(eventId).length > 0 && receiver.forEvent(eventId));
  return request!;
}

test('a refund event is delivered to its invoice callback, signed under the project secret and verifiable with @gw/webhook-verify', async (t) => {
  const invoice = await invoiceWithCallback('/hooks/refunds');
  const refundId = newId();
  const refund = { id: refundId, object: 'refund', status: 'awaiting_claim', invoice_id: invoice.id, amount: '0.002', coin: 'eth' };
  const eventId = await emit({
    projectId: project.projectId,
    projectKind: 'testnet',
    invoiceId: invoice.id,
    eventType: 'refund.created',
    callbackUrl: invoice.callbackUrl,
    data: { invoice_id: invoice.id, refund_id: refundId, status: 'awaiting_claim', previous_status: null, refund },
  });
  const request = await delivered(eventId);
  t.is(request.path, '/hooks/refunds');
  t.is(request.headers['x-service-event-type'], 'refund.created');
  t.is(request.headers['x-service-event-id'], eventId);
  const header = String(request.headers['x-service-signature']);
  t.deepEqual(verifyWebhook({ header, rawBody: request.body, secrets: [project.secret] }).ok, true);
  t.false(verifyWebhook({ header, rawBody: request.body, secrets: ['another-secret'] }).ok);
  const envelope = JSON.parse(request.body) as WebhookEnvelope;
  t.like(envelope, { event_id: eventId, event_type: 'refund.created', mode: 'testnet' });
  if (envelope.event_type !== 'refund.created') return t.fail('not a refund event');
  t.like(envelope.data, { invoice_id: invoice.id, refund_id: refundId, status: 'awaiting_claim', previous_status: null });
  t.deepEqual(envelope.data.refund, refund);

  // The delivery log lists it by type and with its invoice's events.
  const byType = await signedFetch(gw.url, '/api/v1/webhooks/events?event_type=refund.created', project);
  t.is(byType.status, 200, JSON.stringify(byType.body));
  t.deepEqual(
    byType.body.items.map((e: { id: string }) => e.id),
    [eventId],
  );
  const ofInvoice = await signedFetch(gw.url, `/api/v1/webhooks/events?invoice_id=${invoice.id}`, project);
  t.true(ofInvoice.body.items.some((e: { id: string; event_type: string }) => e.id === eventId && e.event_type === 'refund.created'));
  await waitFor(async () => (await gw.kernel.cradle.db('webhooks_events').where({ id: eventId }).first())?.status === 'delivered');

  // A resend goes to the invoice's callback again, as a new signed event of the same type.
  const resent = await signedFetch(gw.url, `/api/v1/webhooks/events/${eventId}/resend`, { ...project, method: 'POST' });
  t.is(resent.status, 202, JSON.stringify(resent.body));
  t.like(resent.body, { original_event_id: eventId, event_type: 'refund.created', invoice_id: invoice.id, target_url: invoice.callbackUrl });
  const again = await delivered(resent.body.event_id);
  t.true(verifyWebhook({ header: String(again.headers['x-service-signature']), rawBody: again.body, secrets: [project.secret] }).ok);
  t.like(JSON.parse(again.body), { event_type: 'refund.created', original_event_id: eventId, data: { refund_id: refundId } });
});

test('a payout event has no invoice: it goes to the default webhook URL, is listed with a null invoice_id and streamed', async (t) => {
  const payoutId = newId();
  const eventId = await emit({
    projectId: project.projectId,
    projectKind: 'testnet',
    invoiceId: null,
    eventType: 'payout.sent',
    callbackUrl: null,
    data: { payout_id: payoutId, status: 'sent', previous_status: 'batched', payout: { id: payoutId, object: 'payout', status: 'sent' } },
  });
  const request = await delivered(eventId);
  t.is(request.path, '/hooks/default');
  t.true(verifyWebhook({ header: String(request.headers['x-service-signature']), rawBody: request.body, secrets: [project.secret] }).ok);
  t.like(JSON.parse(request.body), { event_type: 'payout.sent', data: { payout_id: payoutId, status: 'sent', previous_status: 'batched' } });
  const listed = await signedFetch(gw.url, '/api/v1/webhooks/events?event_type=payout.sent', project);
  t.is(listed.status, 200, JSON.stringify(listed.body));
  t.like(listed.body.items[0], { id: eventId, event_type: 'payout.sent', invoice_id: null });
  const streamed = await signedFetch(gw.url, '/api/v1/webhooks/stream?limit=200', project);
  t.is(streamed.status, 200, JSON.stringify(streamed.body));
  t.like(
    streamed.body.items.find((e: { event_id: string }) => e.event_id === eventId),
    { event_type: 'payout.sent', invoice_id: null, body: request.body },
  );
});

test('the delivery log filter takes the new types and refuses an unknown one (validation_error)', async (t) => {
  t.is((await signedFetch(gw.url, '/api/v1/webhooks/events?event_type=payout.cancelled', project)).status, 200);
  const unknown = await signedFetch(gw.url, '/api/v1/webhooks/events?event_type=refund.unknown', project);
  t.is(unknown.status, 400);
  t.is(unknown.body.error_code, 'validation_error');
});

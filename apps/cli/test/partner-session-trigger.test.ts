/**
 * `gateway trigger checkout_session.*` against a real gateway with workers and every plugin of
 * this build: a new sandbox session is picked and paid (or ended), and the event reaches the
 * project's webhook signed with its secret.
 */
import test from 'ava';
import { verifyWebhook } from '@gw/client';
import { waitFor } from '@gw/kernel/testing';
import { partnerGateway } from './partner-gateway.js';

const g = partnerGateway(test, 'gw-partner-sessions-');

async function delivered(eventType: string, sessionId: string) {
  const delivery = await waitFor(
    async () => g.receiver.requests.find((r) => JSON.parse(r.body).event_type === eventType && JSON.parse(r.body).data?.checkout_session_id === sessionId),
    20_000,
    `the ${eventType} delivery`,
  );
  const header = delivery.headers['x-service-signature'] as string;
  return { event: JSON.parse(delivery.body), verified: await verifyWebhook({ header, rawBody: delivery.body, secrets: [g.account.secret] }) };
}

test('trigger checkout_session.completed and checkout_session.expired: each event reaches the project webhook, signed', async (t) => {
  const completed = await g.partner('trigger', 'checkout_session.completed', '--coin', 'btc', '--json');
  t.is(completed.code, 0, completed.stderr + completed.stdout);
  t.deepEqual(
    completed.json.steps.map((s: { step: string; status: string }) => [s.step, s.status]),
    [
      ['create', 'open'],
      ['pick', 'open'],
      ['detect', 'open'],
      ['paid', 'completed'],
    ],
  );
  const paid = await delivered('checkout_session.completed', completed.json.checkout_session_id);
  t.true(paid.verified.ok);
  t.is(paid.event.data.invoice_id, completed.json.invoice_id);
  t.is(paid.event.data.checkout_session.status, 'completed');

  const expired = await g.partner('trigger', 'checkout_session.expired');
  t.is(expired.code, 0, expired.stderr);
  const id = /checkout_session.expired for checkout session ([0-9A-Z]{26})/.exec(expired.stdout)?.[1];
  t.truthy(id, expired.stdout);
  const ended = await delivered('checkout_session.expired', id!);
  t.true(ended.verified.ok);
  t.like(ended.event.data, { status: 'expired', previous_status: 'open', invoice_id: null });
});

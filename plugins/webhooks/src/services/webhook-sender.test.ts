import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { verifyWebhook } from '@gw/webhook-verify';
import { WebhookSender } from './webhook-sender.js';

// postSigned is the one signed request of deliveries and test events alike.

test('postSigned signs with every secret and sends the delivery headers; without a secret nothing is sent', async (t) => {
  const seen: { headers: IncomingHttpHeaders; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const sender = new WebhookSender({ timeoutMs: 2000, allowPrivateTargets: true, maxSocketsPerHost: 4, responseExcerptBytes: 64 });
  const request = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    body: '{"event_id":"e1"}',
    eventId: 'e1',
    eventType: 'invoice.paid',
    attempt: 3,
    kind: 'testnet' as const,
  };
  try {
    t.deepEqual(await sender.postSigned(request, []), {
      ok: false,
      httpStatus: null,
      latencyMs: 0,
      error: 'the project has no active API secret to sign with',
      responseExcerpt: null,
    });
    t.is(seen.length, 0, 'an unsigned body is never sent');
    t.like(await sender.postSigned(request, ['old-secret', 'new-secret']), { ok: true, httpStatus: 200 });
    const [got] = seen;
    t.is(got!.body, request.body);
    t.is(got!.headers['x-service-event-id'], 'e1');
    t.is(got!.headers['x-service-event-type'], 'invoice.paid');
    t.is(got!.headers['x-service-delivery-attempt'], '3');
    t.regex(String(got!.headers['user-agent']), /^crypto-gateway-webhooks\//);
    for (const secret of ['old-secret', 'new-secret'])
      t.like(verifyWebhook({ header: got!.headers['x-service-signature'] as string, rawBody: got!.body, secrets: [secret] }), { ok: true }, secret);
  } finally {
    server.close();
  }
});

import test from 'ava';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler, signWebhook, type WebhookEnvelope, type WebhookHandlerOptions } from '../src/index.js';
import { envelope, nowSeconds, post } from './helpers.js';

const SECRET = '3b9f0c2e7a4d61f8b5c09e2d7f6a1b4c8e3d5f7a9b0c2d4e6f8a1b3c5d7e9f0a';
const NEW_SECRET = 'a1c3e5f7092b4d6f8a0c2e4f6b8d0a2c4e6f8b0d2a4c6e8f0b2d4f6a8c0e2b4d';

async function serve(options: Partial<WebhookHandlerOptions> & Pick<WebhookHandlerOptions, 'onEvent'>): Promise<{ port: number; server: Server }> {
  const server = createServer(createWebhookHandler({ secrets: [SECRET], ...options }));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, server };
}

const signed = (body: string, secrets: readonly string[] = [SECRET], timestamp = nowSeconds()) => ({
  'x-service-signature': signWebhook({ secrets, rawBody: body, timestamp }),
});

test('createWebhookHandler: 401 with a distinct reason per failure, 200 on success', async (t) => {
  const seen: WebhookEnvelope[] = [];
  const { port, server } = await serve({ onEvent: (e) => void seen.push(e) });
  t.teardown(() => server.close());
  const event = envelope();
  const body = JSON.stringify(event, null, 2);
  t.deepEqual(await post(port, body, {}), { status: 401, body: { error: 'malformed_signature_header' } });
  t.deepEqual(await post(port, body, signed(body, [NEW_SECRET])), { status: 401, body: { error: 'signature_mismatch' } });
  t.deepEqual(await post(port, body, signed(body, [SECRET], nowSeconds() - 301)), { status: 401, body: { error: 'timestamp_out_of_window' } });
  t.is(seen.length, 0);
  t.deepEqual(await post(port, body, signed(body, [NEW_SECRET, SECRET])), { status: 200, body: { ok: true } });
  t.deepEqual(seen, [event]);
});

test('createWebhookHandler deduplicates on event_id', async (t) => {
  const seen: string[] = [];
  const { port, server } = await serve({ onEvent: (e) => void seen.push(e.event_id) });
  t.teardown(() => server.close());
  const event = envelope();
  const body = JSON.stringify(event);
  for (let i = 0; i < 3; i += 1) t.deepEqual(await post(port, body, signed(body)), { status: 200, body: { ok: true } });
  t.deepEqual(seen, [event.event_id]);
});

test('createWebhookHandler: a failing onEvent is 500 and the retry is processed', async (t) => {
  let calls = 0;
  const { port, server } = await serve({
    onEvent: async () => {
      calls += 1;
      if (calls === 1) throw new Error('database down');
    },
  });
  t.teardown(() => server.close());
  const body = JSON.stringify(envelope());
  t.deepEqual(await post(port, body, signed(body)), { status: 500, body: { error: 'handler_failed' } });
  t.deepEqual(await post(port, body, signed(body)), { status: 200, body: { ok: true } });
  t.deepEqual(await post(port, body, signed(body)), { status: 200, body: { ok: true } });
  t.is(calls, 2);
});

test('createWebhookHandler: an event still being processed is 409 for a concurrent duplicate', async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const started = new Promise<void>((resolve) => (entered = resolve));
  const { port, server } = await serve({
    onEvent: async () => {
      entered();
      await released;
    },
  });
  t.teardown(() => server.close());
  const body = JSON.stringify(envelope());
  const first = post(port, body, signed(body));
  await started;
  t.deepEqual(await post(port, body, signed(body)), { status: 409, body: { error: 'event_in_progress' } });
  release();
  t.deepEqual(await first, { status: 200, body: { ok: true } });
});

test('createWebhookHandler: 405 for other methods, 413 for large bodies, 400 for signed non-envelopes', async (t) => {
  const { port, server } = await serve({ onEvent: () => undefined, maxBodyBytes: 1000 });
  t.teardown(() => server.close());
  t.deepEqual(await post(port, '', {}, 'PUT'), { status: 405, body: { error: 'method_not_allowed' } });
  const large = JSON.stringify({ ...envelope(), pad: 'x'.repeat(2000) });
  t.deepEqual(await post(port, large, signed(large)), { status: 413, body: { error: 'payload_too_large' } });
  for (const body of ['not json', '[]', '{"event_type":"invoice.paid"}', 'null']) {
    t.deepEqual(await post(port, body, signed(body)), { status: 400, body: { error: 'invalid_json' } }, body);
  }
});

test('createWebhookHandler uses the injected clock and tolerance', async (t) => {
  const { port, server } = await serve({ onEvent: () => undefined, nowSeconds: () => 1_000_000, toleranceSeconds: 10 });
  t.teardown(() => server.close());
  const body = JSON.stringify(envelope());
  t.is((await post(port, body, signed(body, [SECRET], 1_000_010))).status, 200);
  t.deepEqual(await post(port, body, signed(body, [SECRET], 1_000_011)), { status: 401, body: { error: 'timestamp_out_of_window' } });
});

test('createWebhookHandler refuses an empty secret list', (t) => {
  t.throws(() => createWebhookHandler({ secrets: [], onEvent: () => undefined }), { instanceOf: TypeError });
});

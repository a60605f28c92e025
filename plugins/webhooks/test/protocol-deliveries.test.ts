/**
 * Protocol deliveries (issue 39): a tiny plugin contributes a `WEBHOOK_SIGNERS` signer and writes
 * its own bodies through `webhooksProtocolDeliveries`; they are delivered with its headers (not the
 * project's signature), retried on the plugin's schedule unless the signer says otherwise, ended
 * without a POST once its subscription is gone, resent with the body its signer makes, kept in the
 * delivery log with their signer, and left out of the event stream.
 */
import { createHmac } from 'node:crypto';
import test from 'ava';
import { CLI_ACTOR, contribute, definePlugin, newId, withDeps } from '@gw/kernel';
import { responseMismatches, signedFetch, startTestKernel, waitFor, type TestKernel } from '@gw/kernel/testing';
import { ALL_CHAINS, FIXED_RATES, stopAll } from '@gw/testing';
import { WEBHOOK_SIGNERS, type SignedRequest, type WebhookSigner } from '../src/contract.js';
import { FAST_RETRIES, projectWithPools, Receiver, WEBHOOK_PLUGINS, type TestProject } from './helpers.js';

/** The probe's subscriptions by ref: undefined = deleted. */
const subscriptions = new Map<string, { secret: string; retry: boolean; url?: string }>();
const SIGNER = 'signer-probe';

const probe: WebhookSigner = {
  id: SIGNER,
  async sign(items) {
    return items.map((item): SignedRequest | undefined => {
      const s = subscriptions.get(item.ref);
      if (!s) return undefined;
      const headers = { 'probe-sig': createHmac('sha256', s.secret).update(item.body).digest('hex'), 'probe-attempt': String(item.attempt) };
      return { headers, retry: s.retry, ...(s.url ? { url: s.url } : {}) };
    });
  },
  resendBody({ body, eventId, originalEventId }) {
    return JSON.stringify({ ...JSON.parse(body), delivery: eventId, redelivery_of: originalEventId });
  },
};

const probePlugin = definePlugin({
  id: SIGNER,
  dependsOn: ['webhooks'],
  contributes: [
    contribute(
      WEBHOOK_SIGNERS,
      withDeps([], () => [probe]),
    ),
  ],
});

let gw: TestKernel, receiver: Receiver, project: TestProject;
test.before(async () => {
  gw = await startTestKernel({
    plugins: [...WEBHOOK_PLUGINS, probePlugin],
    chains: ALL_CHAINS,
    role: 'all',
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.webhooks.allowPrivateTargets': true,
      'plugins.webhooks.privateResponseExcerpts': true,
      'plugins.webhooks.privateAttemptDetails': true,
      ...FAST_RETRIES,
    },
  });
  receiver = await Receiver.start();
  receiver.reply = (r) => (r.path.startsWith('/down') ? { status: 503, body: 'down' } : { status: 200, body: 'ok' });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('protocol-deliveries', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, [], 'testnet');
});
test.after.always(() => stopAll(gw, receiver));

/** Writes one protocol delivery `id` for subscription `ref` to `path` with the body text `body`: the ids written (none for an id written before). */
const write = (ref: string, path: string, id: string, body: string, signer = SIGNER) =>
  gw.kernel.cradle.db.transaction((trx) =>
    gw.kernel.cradle.webhooksProtocolDeliveries.enqueue(trx, [
      {
        id,
        projectId: project.projectId,
        mode: 'testnet',
        invoiceId: null,
        eventType: 'ProbeHappened',
        body,
        targetUrl: `${receiver.url}${path}`,
        signer,
        signerRef: ref,
      },
    ]),
  );

/** Writes one protocol delivery for subscription `ref` to `path`; returns its id. */
async function enqueue(ref: string, path: string, body: Record<string, unknown> = {}, id = newId(), signer = SIGNER): Promise<string> {
  const written = await write(ref, path, id, JSON.stringify({ delivery: id, ...body }), signer);
  return written[0] ?? id;
}

const row = (id: string) => gw.kernel.cradle.db('webhooks_events').where({ id }).first();
const settled = (id: string, status: string) =>
  waitFor(async () => {
    const r = await row(id);
    return r?.status === status && r;
  });
const received = (path: string) => receiver.requests.filter((r) => r.path === path);

test('a protocol delivery is POSTed with its signer’s headers only, logged with its signer, and kept out of the stream', async (t) => {
  subscriptions.set('sub-ok', { secret: 's3cret', retry: true });
  const id = await enqueue('sub-ok', '/ok-1', { n: 1 });
  const [request] = await waitFor(async () => received('/ok-1').length > 0 && received('/ok-1'));
  t.is(request!.body, JSON.stringify({ delivery: id, n: 1 }));
  t.is(request!.headers['probe-sig'], createHmac('sha256', 's3cret').update(request!.body).digest('hex'));
  t.is(request!.headers['probe-attempt'], '1');
  t.is(request!.headers['content-type'], 'application/json');
  t.is(request!.headers['x-service-signature'], undefined);
  t.is(request!.headers['x-service-event-id'], undefined);
  t.like(await settled(id, 'delivered'), { attempts: 1, signer: SIGNER, signer_ref: 'sub-ok', event_type: 'ProbeHappened' });

  const entry = await signedFetch(gw.url, `/api/v1/webhooks/events/${id}`, project);
  t.is(entry.status, 200);
  t.like(entry.body, { id, event_type: 'ProbeHappened', signer: SIGNER, status: 'delivered', payload: { delivery: id, n: 1 } });
  t.deepEqual(responseMismatches(gw.kernel, 'GET', `/api/v1/webhooks/events/${id}`, entry.status, entry.body), []);
  const list = await signedFetch(gw.url, '/api/v1/webhooks/events', project);
  t.true(list.body.items.some((e: { id: string }) => e.id === id));
  t.deepEqual(responseMismatches(gw.kernel, 'GET', '/api/v1/webhooks/events', list.status, list.body), []);

  const stream = await signedFetch(gw.url, '/api/v1/webhooks/stream?limit=200', project);
  t.is(stream.status, 200);
  t.false(stream.body.items.some((e: { event_id: string }) => e.event_id === id));

  const view = await gw.kernel.cradle.webhooksProtocolDeliveries.get(project.projectId, SIGNER, 'sub-ok', id);
  t.like(view, { id, eventType: 'ProbeHappened', status: 'delivered', attempts: 1, lastHttpStatus: 200 });
  t.is(await gw.kernel.cradle.webhooksProtocolDeliveries.get(project.projectId, SIGNER, 'another-sub', id), undefined);
  t.true((await gw.kernel.cradle.webhooksProtocolDeliveries.list(project.projectId, SIGNER, 'sub-ok', 10)).some((d) => d.id === id));
});

test('the same delivery id written twice is one delivery', async (t) => {
  subscriptions.set('sub-twice', { secret: 'x', retry: true });
  const id = newId();
  await enqueue('sub-twice', '/twice', {}, id);
  const again = await write('sub-twice', '/twice', id, '{}');
  t.deepEqual(again, []);
  await settled(id, 'delivered');
  t.is(received('/twice').length, 1);
  t.is((await gw.kernel.cradle.db('webhooks_events').where({ id })).length, 1);
});

test('failures are retried on the schedule while the signer asks for retries, then dead-lettered', async (t) => {
  subscriptions.set('sub-retry', { secret: 'x', retry: true });
  const id = await enqueue('sub-retry', '/down-retry');
  t.like(await settled(id, 'dlq'), { attempts: FAST_RETRIES['plugins.webhooks.maxAttempts'], last_http_status: 503 });
  t.deepEqual(
    received('/down-retry').map((r) => r.headers['probe-attempt']),
    ['1', '2', '3'],
  );
});

test('a signer that asks for no retries dead-letters at the first failure', async (t) => {
  subscriptions.set('sub-once', { secret: 'x', retry: false });
  const id = await enqueue('sub-once', '/down-once');
  t.like(await settled(id, 'dlq'), { attempts: 1, last_http_status: 503 });
  t.is(received('/down-once').length, 1);
});

test('a delivery whose subscription is gone ends skipped without a POST or a retry; so does one of a signer no plugin contributes', async (t) => {
  subscriptions.set('sub-gone', { secret: 'x', retry: true });
  subscriptions.delete('sub-gone');
  const id = await enqueue('sub-gone', '/gone');
  const ended = await settled(id, 'skipped');
  t.like(ended, { attempts: 1, next_attempt_at: null, delivered_at: null });
  t.regex(ended.last_error, /deleted or disabled/);
  const attempts = await gw.kernel.cradle.db('webhooks_attempts').where({ event_id: id });
  t.is(attempts.length, 1);
  t.like(attempts[0], { http_status: null, latency_ms: 0 });
  const orphan = await enqueue('any', '/orphan', {}, newId(), 'no-such-signer');
  await settled(orphan, 'skipped');
  t.is(received('/gone').length + received('/orphan').length, 0);
});

test('an attempt goes to the URL the signer names now, and the event keeps it', async (t) => {
  subscriptions.set('sub-moved', { secret: 'x', retry: true, url: `${receiver.url}/moved-new` });
  const id = await enqueue('sub-moved', '/moved-old');
  const delivered = await settled(id, 'delivered');
  t.is(delivered.target_url, `${receiver.url}/moved-new`);
  t.is(received('/moved-new').length, 1);
  t.is(received('/moved-old').length, 0);
  const [attempt] = (await gw.kernel.cradle.webhooksEventLog.get(project.projectId, id)).attempt_log;
  t.is(attempt!.target_url, `${receiver.url}/moved-new`);
});

test('a resend is a new delivery to the same subscription, its body made by the signer', async (t) => {
  subscriptions.set('sub-resend', { secret: 'r', retry: true });
  const id = await enqueue('sub-resend', '/resend', { n: 7 });
  await settled(id, 'delivered');
  const res = await signedFetch(gw.url, `/api/v1/webhooks/events/${id}/resend`, { ...project, method: 'POST' });
  t.is(res.status, 202);
  t.like(res.body, { original_event_id: id, event_type: 'ProbeHappened', target_url: `${receiver.url}/resend` });
  t.deepEqual(responseMismatches(gw.kernel, 'POST', `/api/v1/webhooks/events/${id}/resend`, res.status, res.body), []);
  const fresh = res.body.event_id as string;
  t.like(await settled(fresh, 'delivered'), { signer: SIGNER, signer_ref: 'sub-resend', original_event_id: id });
  const requests = received('/resend');
  t.is(requests.length, 2);
  t.deepEqual(JSON.parse(requests[1]!.body), { delivery: fresh, n: 7, redelivery_of: id });
  t.is(requests[1]!.headers['probe-sig'], createHmac('sha256', 'r').update(requests[1]!.body).digest('hex'));
  // The original is untouched.
  t.like(await row(id), { status: 'delivered', attempts: 1, body: JSON.stringify({ delivery: id, n: 7 }) });
});

test('a delivery of a signer no plugin contributes cannot be resent', async (t) => {
  const id = await enqueue('x', '/orphan-resend', {}, newId(), 'no-such-signer');
  await settled(id, 'skipped');
  const res = await signedFetch(gw.url, `/api/v1/webhooks/events/${id}/resend`, { ...project, method: 'POST' });
  t.is(res.status, 409);
  t.is(res.body.error_code, 'event_not_resendable');
});

test('target rules: a project’s webhook URL rules, and IP literals that are not public unless private targets are allowed', (t) => {
  const deliveries = gw.kernel.cradle.webhooksProtocolDeliveries;
  t.is(deliveries.targetRefusal('https://shop.example/hook', 'production'), undefined);
  t.regex(deliveries.targetRefusal('http://shop.example/hook', 'production')!, /https/);
  t.regex(deliveries.targetRefusal('ftp://shop.example/hook', 'testnet')!, /https/);
  t.regex(deliveries.targetRefusal('https://user:pw@shop.example/hook', 'testnet')!, /credentials/);
  t.regex(deliveries.targetRefusal('not a url', 'testnet')!, /absolute/);
  // This kernel allows private targets; link-local stays refused for sandbox projects.
  t.is(deliveries.targetRefusal('http://127.0.0.1:9/hook', 'testnet'), undefined);
  t.regex(deliveries.targetRefusal('http://169.254.169.254/latest', 'sandbox')!, /link-local/);
});

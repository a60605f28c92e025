/**
 * Issue 26 finding 4: a gateway whose `env` was never set is not open. Its webhooks refuse private,
 * loopback and link-local targets of production and testnet projects (the cloud metadata address
 * included), and keep no excerpt of what such a target would answer.
 */
import test from 'ava';
import { CLI_ACTOR, runMode } from '@gw/kernel';
import { startTestKernel, waitFor, signedFetch, type TestKernel } from '@gw/kernel/testing';
import { payInvoice } from '@gw/plugin-invoices/testing';
import { ALL_CHAINS, FIXED_RATES } from '@gw/testing';
import { WITHHELD_ERROR } from '../src/services/webhook-sender.js';
import { FAST_RETRIES, projectWithPools, Receiver, WEBHOOK_PLUGINS } from './helpers.js';

let gw: TestKernel;
let receiver: Receiver;
test.before(async () => {
  // No env and no plugins.webhooks.allowPrivateTargets: the defaults under test.
  gw = await startTestKernel({
    plugins: WEBHOOK_PLUGINS,
    chains: ALL_CHAINS,
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES, 'plugins.address-pool.targetFree': 5, ...FAST_RETRIES },
  });
  receiver = await Receiver.start();
});
test.after.always(async () => {
  await gw?.close();
  await receiver?.close();
});

test('without env the gateway runs with production rules and refuses a link-local (metadata) and a loopback callback', async (t) => {
  t.is(gw.kernel.cradle.kernelConfig.env, undefined);
  t.like(runMode(gw.kernel.cradle.kernelConfig), { env: 'production', explicit: false });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('safe-defaults', CLI_ACTOR)).id;
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const targets = ['http://169.254.169.254/latest/meta-data/iam/security-credentials/', `${receiver.url}/hooks/loopback`];
  for (const callback_url of targets) {
    const created = await signedFetch(gw.url, '/api/v1/invoices', {
      ...p,
      method: 'POST',
      body: { external_id: `o-${Math.random()}`, amount_crypto: '0.01', coin: 'eth', callback_url },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    const eventId = await payInvoice(gw.kernel.cradle, p.projectId, created.body.id, {});
    const attempt = await waitFor(
      async () => gw.kernel.cradle.db('webhooks_attempts').where({ event_id: eventId }).orderBy('attempt').first(),
      20_000,
      'the first attempt',
    );
    t.like(attempt, { http_status: null, response_excerpt: null }, callback_url);
    t.regex(attempt.error, /private, loopback or link-local address; refused/);
  }
  t.is(receiver.requests.length, 0, 'the loopback receiver was never contacted');
});

test('with private targets allowed outside development, the delivery log shows no status, error or latency of a non-public target (issue 33 finding 13)', async (t) => {
  const open = await startTestKernel({
    plugins: WEBHOOK_PLUGINS,
    chains: ALL_CHAINS,
    config: {
      'plugins.rates.providers': ['fixed'],
      'plugins.rates.fixed': FIXED_RATES,
      'plugins.address-pool.targetFree': 5,
      'plugins.webhooks.allowPrivateTargets': true,
      ...FAST_RETRIES,
    },
  });
  t.teardown(() => open.close());
  receiver.reply = (request) => ({ status: request.path.endsWith('/fail') ? 503 : 200, body: 'internal' });
  const operatorId = (await open.kernel.cradle.tenancyOperators.create('withheld', CLI_ACTOR)).id;
  const p = await projectWithPools(open, operatorId, ['eth'], 'testnet');
  for (const [path, ok] of [
    ['/hooks/ok', true],
    ['/hooks/fail', false],
  ] as const) {
    const created = await signedFetch(open.url, '/api/v1/invoices', {
      ...p,
      method: 'POST',
      body: { external_id: `o-${Math.random()}`, amount_crypto: '0.01', coin: 'eth', callback_url: `${receiver.url}${path}` },
    });
    t.is(created.status, 201, JSON.stringify(created.body));
    const eventId = await payInvoice(open.kernel.cradle, p.projectId, created.body.id, {});
    await waitFor(async () => open.kernel.cradle.db('webhooks_events').where({ id: eventId }).where('attempts', '>', 0).first(), 20_000, 'the first attempt');
    // What the partner reads back over REST.
    const log = await signedFetch(open.url, `/api/v1/webhooks/events/${eventId}`, { ...p });
    t.is(log.status, 200, JSON.stringify(log.body));
    const attempt = log.body.attempt_log[0];
    t.like(attempt, { http_status: null, latency_ms: 0, error: ok ? null : WITHHELD_ERROR, response_excerpt: null }, path);
    t.like(log.body, { last_http_status: null, last_error: ok ? null : WITHHELD_ERROR }, path);
  }
  t.is(receiver.requests.length, 2, 'the receiver was reached: only the detail is withheld');
});

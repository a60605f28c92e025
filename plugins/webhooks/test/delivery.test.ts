import test from 'ava';
import { CLI_ACTOR, sql, sqlQuery } from '@gw/kernel';
import { signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { expireInvoice, payInvoice } from '@gw/plugin-invoices/testing';
import type { Knex } from 'knex';
import { projectWithPools, Receiver, startWebhooksKernel, type TestProject } from './helpers.js';
import { stopAll } from '@gw/testing';

let gw: TestKernel, receiver: Receiver, project: TestProject, operatorId: string;
test.before(async () => {
  gw = await startWebhooksKernel();
  receiver = await Receiver.start();
  // Tests run concurrently: one reply rule for every path.
  receiver.reply = (r) => {
    if (r.path === '/hooks/down') return { status: 503, body: 'maintenance '.repeat(100) };
    if (r.path === '/hooks/slow') return { status: 200, delayMs: 3000 };
    return { status: 200, body: '{"ok":true}' };
  };
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('webhooks-delivery', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
});
test.after.always(() => stopAll(gw, receiver));

const uid = () => `order-${Math.random().toString(36).slice(2)}`;

async function invoice(p: TestProject, callbackPath: string | null): Promise<{ id: string }> {
  const body = { external_id: uid(), amount_crypto: '0.01', coin: 'eth', ...(callbackPath === null ? {} : { callback_url: `${receiver.url}${callbackPath}` }) };
  const created = await signedFetch(gw.url, '/api/v1/invoices', { ...p, method: 'POST', body });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}

/** A payment seen at the invoice's address: `pending` → `detected` with `invoice.detected`. */
async function detect(p: TestProject, invoiceId: string, trx?: Knex.Transaction): Promise<{ eventId: string | undefined }> {
  return { eventId: await payInvoice(gw.kernel.cradle, p.projectId, invoiceId, {}, trx) };
}

const eventRow = (id: string) => gw.kernel.cradle.db('webhooks_events').where({ id }).first();

test('a state change is delivered once, signed under the project secret, with the envelope of spec 2.5', async (t) => {
  const inv = await invoice(project, '/hooks/ok');
  const { eventId } = await detect(project, inv.id);
  t.truthy(eventId);
  const [request] = await waitFor(async () => receiver.forEvent(eventId!).length > 0 && receiver.forEvent(eventId!));
  t.is(request!.path, '/hooks/ok');
  t.is(request!.headers['content-type'], 'application/json');
  t.is(request!.headers['x-service-event-type'], 'invoice.detected');
  t.is(request!.headers['x-service-delivery-attempt'], '1');
  t.regex(String(request!.headers['user-agent']), /^crypto-gateway-webhooks\//);
  const verdict = verifyWebhook({ header: String(request!.headers['x-service-signature']), rawBody: request!.body, secrets: [project.secret] });
  t.true(verdict.ok, JSON.stringify(verdict));
  t.false(verifyWebhook({ header: String(request!.headers['x-service-signature']), rawBody: request!.body, secrets: ['not-the-secret'] }).ok);
  const envelope = JSON.parse(request!.body);
  t.like(envelope, {
    event_id: eventId,
    event_type: 'invoice.detected',
    mode: 'testnet',
    data: { invoice_id: inv.id, status: 'detected', previous_status: 'pending' },
  });
  t.is(envelope.data.invoice.id, inv.id);
  t.is(envelope.data.invoice.status, 'detected');
  t.is(new Date(envelope.created_at_iso).toISOString(), envelope.created_at_iso);
  const row = await waitFor(async () => {
    const r = await eventRow(eventId!);
    return r?.status === 'delivered' && r;
  });
  t.like(row, { attempts: 1, last_http_status: 200, last_error: null, target_url: `${receiver.url}/hooks/ok` });
  t.truthy(row.delivered_at);
  // A delivering attempt writes no attempt row: its event row carries it, and the log shows it from there (ADR 0013).
  t.is((await gw.kernel.cradle.db('webhooks_attempts').where({ event_id: eventId })).length, 0);
  const { attempt_log: attempts } = await gw.kernel.cradle.webhooksEventLog.get(project.projectId, eventId!);
  t.is(attempts.length, 1);
  t.like(attempts[0], { attempt: 1, http_status: 200, error: null, response_excerpt: '{"ok":true}', target_url: `${receiver.url}/hooks/ok` });
  t.true(attempts[0]!.latency_ms >= 0);
  t.truthy(attempts[0]!.started_at_iso);
});

test('failures are retried with the same event_id and the same body, then dead-lettered', async (t) => {
  const inv = await invoice(project, '/hooks/down');
  const { eventId } = await detect(project, inv.id);
  const row = await waitFor(async () => {
    const r = await eventRow(eventId!);
    return r?.status === 'dlq' && r;
  }, 30_000);
  t.like(row, { attempts: 3, last_http_status: 503, last_error: 'HTTP 503', next_attempt_at: null });
  const seen = receiver.forEvent(eventId!);
  t.is(seen.length, 3, 'three attempts (maxAttempts)');
  t.deepEqual(
    seen.map((r) => r.headers['x-service-delivery-attempt']),
    ['1', '2', '3'],
  );
  t.is(new Set(seen.map((r) => r.body)).size, 1, 'every attempt sends the same body');
  // Backoff: about 1 s then 2 s between attempts (no jitter in the tests).
  t.true(seen[1]!.at - seen[0]!.at >= 900, `first retry after ${seen[1]!.at - seen[0]!.at} ms`);
  t.true(seen[2]!.at - seen[1]!.at >= 1900, `second retry after ${seen[2]!.at - seen[1]!.at} ms`);
  const attempts = await gw.kernel.cradle.db('webhooks_attempts').where({ event_id: eventId }).orderBy('attempt');
  t.deepEqual(
    attempts.map((a) => a.http_status),
    [503, 503, 503],
  );
  t.is(attempts[0].response_excerpt.length, 512, 'response excerpt bounded');
});

test('a response slower than the timeout is a failed attempt with the reason', async (t) => {
  const inv = await invoice(project, '/hooks/slow');
  const { eventId } = await detect(project, inv.id);
  const attempt = await waitFor(async () => gw.kernel.cradle.db('webhooks_attempts').where({ event_id: eventId, attempt: 1 }).first(), 20_000);
  t.is(attempt.http_status, null);
  t.regex(attempt.error, /no complete response within 2000 ms/);
  t.true(attempt.latency_ms >= 1900);
  t.like(await eventRow(eventId!), { status: 'retrying', attempts: 1 });
});

test('no callback_url and no default webhook URL: skipped, nothing sent; the default URL is used when set', async (t) => {
  const bare = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const first = await invoice(bare, null);
  const { eventId: skippedId } = await detect(bare, first.id);
  t.like(await eventRow(skippedId!), { status: 'skipped', target_url: null, attempts: 0 });
  await gw.kernel.cradle.tenancyProjects.setWebhookUrl(bare.projectId, `${receiver.url}/hooks/default`, CLI_ACTOR);
  const second = await invoice(bare, null);
  const { eventId } = await detect(bare, second.id);
  await waitFor(async () => receiver.forEvent(eventId!).length > 0);
  t.is(receiver.forEvent(eventId!)[0]!.path, '/hooks/default');
  t.is(receiver.forEvent(skippedId!).length, 0);
});

/**
 * The signature header of the first delivery of an event of a fresh testnet project whose key was
 * rotated (with the overlap, or `immediate`), and whether a secret verifies it.
 */
async function deliveryAfterRotation(hookPath: string, options?: { immediate: true }) {
  const rotating = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(rotating, hookPath);
  const rotated = await gw.kernel.cradle.tenancyApiKeys.rotate(rotating.projectId, CLI_ACTOR, options);
  const { eventId } = await detect(rotating, inv.id);
  const [request] = await waitFor(async () => receiver.forEvent(eventId!).length > 0 && receiver.forEvent(eventId!));
  const header = String(request!.headers['x-service-signature']);
  const verifies = (secret: string) => verifyWebhook({ header, rawBody: request!.body, secrets: [secret] }).ok;
  return { header, verifies, oldSecret: rotating.secret, newSecret: rotated.api_secret };
}

test('during a key rotation overlap the header carries one v1 per valid secret', async (t) => {
  const { header, verifies, oldSecret, newSecret } = await deliveryAfterRotation('/hooks/rotation');
  t.is(header.match(/v1=/g)?.length, 2);
  t.true(verifies(oldSecret), 'the old secret verifies');
  t.true(verifies(newSecret), 'the new secret verifies');
});

test('after an immediate rotation the header carries the new secret only (issue 26 finding 10)', async (t) => {
  const { header, verifies, oldSecret, newSecret } = await deliveryAfterRotation('/hooks/rotation-immediate', { immediate: true });
  t.is(header.match(/v1=/g)?.length, 1);
  t.false(verifies(oldSecret), 'the leaked secret no longer verifies');
  t.true(verifies(newSecret), 'the new secret verifies');
});

test('an event rolled back with its state change never exists; one committed is always due for delivery', async (t) => {
  const { db } = gw.kernel.cradle;
  const inv = await invoice(project, '/hooks/ok');
  let emitted: string | undefined;
  await t.throwsAsync(
    db.transaction(async (trx) => {
      emitted = (await detect(project, inv.id, trx)).eventId;
      throw new Error('the caller fails after the change');
    }),
    { message: 'the caller fails after the change' },
  );
  t.truthy(emitted);
  t.is(await eventRow(emitted!), undefined, 'no event row');
  // The event row is its own delivery job (ADR 0013): none of the rolled-back event was left behind anywhere.
  t.is((await sqlQuery<{ n: number }>(db, sql`select count(*)::int as n from webhooks_events where id = ${emitted!}`))[0]!.n, 0);
  t.like(await db('invoices_invoices').where({ id: inv.id }).first(), { status: 'pending' });
  // No worker in this transaction's way: the committed event is due at once (or already delivered).
  const { eventId } = await detect(project, inv.id);
  const [due] = await sqlQuery<{ status: string; due: boolean }>(
    db,
    sql`select status, next_attempt_at <= now() as due from webhooks_events where id = ${eventId!}`,
  );
  t.true(due!.status === 'delivered' || (due!.status === 'retrying' && due!.due), JSON.stringify(due));
});

test('a fact the lifecycle refuses writes nothing: cancelling an expired invoice is 409 invoice_not_cancellable, no event', async (t) => {
  const inv = await invoice(project, '/hooks/ok');
  await expireInvoice(gw.kernel.cradle, project.projectId, inv.id);
  const before = await gw.kernel.cradle.db('webhooks_events').where({ invoice_id: inv.id }).count<{ count: string }[]>('* as count');
  const error = await t.throwsAsync(gw.kernel.cradle.invoicesLifecycle.cancel(project.projectId, inv.id, CLI_ACTOR));
  t.is((error as { code?: string }).code, 'invoice_not_cancellable');
  const after = await gw.kernel.cradle.db('webhooks_events').where({ invoice_id: inv.id }).count<{ count: string }[]>('* as count');
  t.deepEqual(after, before);
});

import test from 'ava';
import { CLI_ACTOR, sql, sqlQuery } from '@gw/kernel';
import { createTestDatabase, signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { payInvoice } from '@gw/plugin-invoices/testing';
import { projectWithPools, Receiver, startWebhooksKernel, type TestProject } from './helpers.js';

// One fetch loop, so a batch held up by a hanging receiver would hold up every later delivery;
// a 6 s timeout (room for two deliveries on a loaded machine while one hangs) and a 200 ms batch
// wait, so a hanging delivery straggles past its batch.
const TIMEOUT_MS = 6000;
let gw: TestKernel;
let receiver: Receiver;
let project: TestProject;
test.before(async () => {
  gw = await startWebhooksKernel({ 'plugins.webhooks.workers': 1, 'plugins.webhooks.timeoutMs': TIMEOUT_MS, 'plugins.webhooks.batchWaitMs': 200 });
  receiver = await Receiver.start();
  receiver.reply = (r) => {
    if (r.path === '/hooks/hang') return { delayMs: 60_000 };
    if (r.path === '/hooks/reset') return { misbehave: 'reset' };
    if (r.path === '/hooks/garbage') return { misbehave: 'garbage' };
    if (r.path === '/hooks/redirect') return { status: 302, body: '' };
    if (r.path === '/hooks/not-found') return { status: 404, body: '{"error":"no such hook"}' };
    if (r.path === '/hooks/broken') return { status: 500, body: '<html>oops</html>' };
    return { status: 200, body: '{"ok":true}' };
  };
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('webhooks-hostile', CLI_ACTOR)).id;
  project = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
});
test.after.always(async () => {
  await gw?.close();
  await receiver?.close();
});

/** A pending invoice whose events go to `path` of the receiver: returns its id. */
async function invoiceTo(path: string, on: { gw: TestKernel; project: TestProject } = { gw, project }): Promise<string> {
  const body = { external_id: `hostile-${Math.random().toString(36).slice(2)}`, amount_crypto: '0.01', coin: 'eth', callback_url: `${receiver.url}${path}` };
  const created = await signedFetch(on.gw.url, '/api/v1/invoices', { ...on.project, method: 'POST', body });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body.id;
}

/** Moves an invoice to `detected`: returns the event id. */
async function detect(invoiceId: string, on: { gw: TestKernel; project: TestProject } = { gw, project }): Promise<string> {
  return (await payInvoice(on.gw.kernel.cradle, on.project.projectId, invoiceId))!;
}

/** An invoice whose events go to `path` of the receiver, moved to `detected`: returns its event id. */
async function eventTo(path: string, on: { gw: TestKernel; project: TestProject } = { gw, project }): Promise<string> {
  return detect(await invoiceTo(path, on), on);
}

const eventRow = (id: string) => gw.kernel.cradle.db('webhooks_events').where({ id }).first();
const attemptsOf = (id: string) => gw.kernel.cradle.db('webhooks_attempts').where({ event_id: id }).orderBy('attempt');
/**
 * Whether an event waits for its attempt `attempt` (its row `retrying` after `attempt - 1`
 * attempts; 1 or 0); with `later`, only when that attempt is due in the future (a straggler's
 * lease, not an attempt due now).
 */
const waitingJobs = async (id: string, attempt: number, on: TestKernel = gw, later = true) =>
  (
    await sqlQuery<{ n: number }>(
      on.kernel.cradle.db,
      sql`select count(*)::int as n from webhooks_events where id = ${id} and status = 'retrying' and attempts = ${attempt - 1} ${later ? sql`and next_attempt_at > now()` : sql``}`,
    )
  )[0]!.n;

test.serial('receivers that hang, reset, redirect, answer 4xx/5xx or garbage stall no other delivery and lose no event', async (t) => {
  const hang = await eventTo('/hooks/hang');
  const hostile = {
    reset: await eventTo('/hooks/reset'),
    garbage: await eventTo('/hooks/garbage'),
    redirect: await eventTo('/hooks/redirect'),
    notFound: await eventTo('/hooks/not-found'),
    broken: await eventTo('/hooks/broken'),
  };
  // The hanging delivery is under way, its batch moved on: healthy events sent after it are
  // delivered and recorded while it still hangs.
  const healthyInvoices = [await invoiceTo('/hooks/ok'), await invoiceTo('/hooks/ok')];
  await waitFor(async () => receiver.forEvent(hang).length === 1);
  const healthy = [await detect(healthyInvoices[0]!), await detect(healthyInvoices[1]!)];
  for (const id of healthy) await waitFor(async () => (await eventRow(id))?.status === 'delivered');
  t.like(await eventRow(hang), { status: 'retrying', attempts: 0 }, 'the hanging attempt has not ended yet');
  t.is(await waitingJobs(hang, 1), 1, 'a lease guards the hanging attempt');

  // Each hostile answer is a failed attempt with its reason, and a next attempt is scheduled.
  const first = async (id: string) => waitFor(async () => (await attemptsOf(id))[0], 10_000);
  t.like(await first(hostile.redirect), { http_status: 302, error: 'HTTP 302' });
  t.like(await first(hostile.notFound), { http_status: 404, error: 'HTTP 404', response_excerpt: '{"error":"no such hook"}' });
  t.like(await first(hostile.broken), { http_status: 500, error: 'HTTP 500', response_excerpt: '<html>oops</html>' });
  t.like(await first(hostile.reset), { http_status: null });
  t.regex((await first(hostile.reset)).error, /ECONNRESET|socket hang up/);
  t.like(await first(hostile.garbage), { http_status: null });
  t.regex((await first(hostile.garbage)).error, /HPE_|Parse Error/);
  const hung = await first(hang);
  t.like(hung, { http_status: null, error: `no complete response within ${TIMEOUT_MS} ms` });
  t.true(hung.latency_ms >= TIMEOUT_MS - 100, `the hanging attempt took ${hung.latency_ms} ms`);
  t.is(await waitingJobs(hang, 1), 0, "the lease ended with the straggler's record");

  // None is lost: every hostile event is retried to its last attempt and dead-lettered.
  for (const id of [hang, ...Object.values(hostile)]) {
    const row = await waitFor(async () => {
      const r = await eventRow(id);
      return r?.status === 'dlq' && r;
    }, 60_000);
    t.is(row.attempts, 3, `event ${id}`);
    t.is(receiver.forEvent(id).length, 3, `three requests reached the receiver for ${id}`);
  }
  for (const id of healthy) t.is(receiver.forEvent(id).length, 1);
});

test.serial('a batch whose record fails is put off with backoff and its event is delivered, not lost', async (t) => {
  const db = gw.kernel.cradle.db;
  // The delivery reaches the receiver, but its record cannot be written (as when the database
  // fails between the POST and the record): the statement fails, the batch's transaction with it.
  await db.raw(`create function webhooks_test_fail_record() returns trigger language plpgsql as $$
    begin
      if new.target_url like '%/hooks/record-fails' and new.attempts > old.attempts then raise exception 'injected record failure'; end if;
      return new;
    end $$`);
  await db.raw('create trigger webhooks_test_fail_record before update on webhooks_events for each row execute function webhooks_test_fail_record()');
  t.teardown(async () => {
    await db.raw('drop trigger if exists webhooks_test_fail_record on webhooks_events');
    await db.raw('drop function if exists webhooks_test_fail_record()');
  });
  const id = await eventTo('/hooks/record-fails');
  await waitFor(async () => receiver.forEvent(id).length >= 2, 20_000);
  const failing = await eventRow(id);
  t.like(failing, { status: 'retrying', attempts: 0 }, 'nothing recorded while the record fails');
  t.true(failing.record_failures >= 1, 'the failed records were counted');
  t.true(new Date(failing.next_attempt_at).getTime() > new Date(failing.created_at).getTime(), 'the next try was put off');

  await db.raw('drop trigger webhooks_test_fail_record on webhooks_events');
  const row = await waitFor(async () => {
    const r = await eventRow(id);
    return r?.status === 'delivered' && r;
  }, 30_000);
  t.is(row.attempts, 1, 'the same first attempt, recorded once the record succeeds');
  t.is((await gw.kernel.cradle.webhooksEventLog.get(project.projectId, id)).attempt_log.length, 1);
});

test('a graceful stop waits for the stragglers in flight and records them', async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const config = { 'plugins.webhooks.workers': 1, 'plugins.webhooks.timeoutMs': 3000, 'plugins.webhooks.batchWaitMs': 200 };
  const stopping = await startWebhooksKernel(config, { database });
  const operatorId = (await stopping.kernel.cradle.tenancyOperators.create('webhooks-stop', CLI_ACTOR)).id;
  const id = await eventTo('/hooks/hang', { gw: stopping, project: await projectWithPools(stopping, operatorId, ['eth'], 'testnet') });
  await waitFor(async () => (await waitingJobs(id, 1, stopping)) === 1, 10_000, 'the straggler and its fallback job');
  await stopping.close();

  // What the stopped worker left, read through a gateway (no workers) on the same database.
  const reader = await startWebhooksKernel(config, { role: 'gateway', database });
  t.teardown(() => reader.close());
  const attempts = await reader.kernel.cradle.db('webhooks_attempts').where({ event_id: id });
  t.is(attempts.length, 1, 'the straggler was recorded before the stop ended');
  t.like(attempts[0], { attempt: 1, http_status: null, error: 'no complete response within 3000 ms' });
  t.like(await reader.kernel.cradle.db('webhooks_events').where({ id }).first(), { status: 'retrying', attempts: 1 });
  t.is(await waitingJobs(id, 1, reader), 0, 'its fallback job ended with the record');
  t.is(await waitingJobs(id, 2, reader, false), 1, 'the next attempt is scheduled');
});

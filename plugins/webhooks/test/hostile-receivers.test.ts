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
 * Delivery jobs of an event's attempt waiting to run; with `later`, only those due in the future
 * (a straggler's fallback job, not the attempt's own job before a worker fetched it).
 */
const waitingJobs = async (id: string, attempt: number, on: TestKernel = gw, later = true) =>
  (
    await sqlQuery<{ n: number }>(
      on.kernel.cradle.db,
      sql`select count(*)::int as n from pgboss.job where name = 'webhooks.deliver' and state = 'created' and data->>'eventId' = ${id} and (data->>'attempt')::int = ${attempt} ${later ? sql`and start_after > now()` : sql``}`,
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
  t.is(await waitingJobs(hang, 1), 1, 'a fallback job guards the hanging attempt');

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
  t.is(await waitingJobs(hang, 1), 0, "the fallback job ended with the straggler's record");

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

test.serial('a batch whose record fails goes back to the queue with backoff and its event is delivered, not lost', async (t) => {
  const db = gw.kernel.cradle.db;
  // The delivery reaches the receiver, but its attempt row cannot be written (as when the
  // database fails between the POST and the record): the statement fails, the batch with it.
  await db.raw(`create function webhooks_test_fail_record() returns trigger language plpgsql as $$
    begin
      if new.target_url like '%/hooks/record-fails' then raise exception 'injected record failure'; end if;
      return new;
    end $$`);
  await db.raw('create trigger webhooks_test_fail_record before insert on webhooks_attempts for each row execute function webhooks_test_fail_record()');
  t.teardown(async () => {
    await db.raw('drop trigger if exists webhooks_test_fail_record on webhooks_attempts');
    await db.raw('drop function if exists webhooks_test_fail_record()');
  });
  const id = await eventTo('/hooks/record-fails');
  await waitFor(async () => receiver.forEvent(id).length >= 2, 20_000);
  t.like(await eventRow(id), { status: 'retrying', attempts: 0 }, 'nothing recorded while the record fails');
  const [job] = (
    await db.raw(`select retry_count, retry_backoff, retry_delay_max, retry_limit from pgboss.job where name = 'webhooks.deliver' and data->>'eventId' = ?`, [
      id,
    ])
  ).rows;
  t.like(job, { retry_backoff: true, retry_delay_max: 3600, retry_limit: 1000 });
  t.true(job.retry_count >= 1, 'pg-boss retried the failed batch');

  await db.raw('drop trigger webhooks_test_fail_record on webhooks_attempts');
  const row = await waitFor(async () => {
    const r = await eventRow(id);
    return r?.status === 'delivered' && r;
  }, 30_000);
  t.is(row.attempts, 1, 'the same first attempt, recorded once the record succeeds');
  t.is((await attemptsOf(id)).length, 1);
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

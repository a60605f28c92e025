/**
 * The event stream behind `gateway listen`: commit order below the snapshot horizon (an event of a
 * transaction that began earlier and commits later is never passed over), cursors, the long poll
 * across two gateway instances on one database, and project scoping.
 */
import test, { type ExecutionContext } from 'ava';
import { newId } from '@gw/kernel';
import { signedFetch, startTestKernel, waitFor, type TestKernel } from '@gw/kernel/testing';
import { sandboxClient, startSandboxKernel, SANDBOX_PLUGINS, type SandboxClient } from './helpers.js';
import { ALL_CHAINS } from '@gw/testing';
import type { OutboxEntry } from '@gw/plugin-webhooks';

let gw: TestKernel;

test.before(async () => {
  gw = await startSandboxKernel();
});
test.after.always(async () => {
  await gw?.close();
});

function entry(projectId: string): OutboxEntry {
  const id = newId();
  const createdAt = new Date();
  const body = JSON.stringify({
    event_id: id,
    event_type: 'invoice.paid',
    mode: 'sandbox',
    created_at_iso: createdAt.toISOString(),
    data: { invoice_id: 'x' },
  });
  return { id, projectId, mode: 'sandbox', invoiceId: null, eventType: 'invoice.paid', originalEventId: null, body, targetUrl: null, createdAt };
}

async function stream(account: SandboxClient, query: string): Promise<{ items: { event_id: string; body: string }[]; next_cursor?: string }> {
  const answer = await account.call('GET', `/webhooks/stream${query}`);
  if (answer.status !== 200) throw new Error(`stream answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** A second gateway process (role `gateway`) on the same database, closed after the test. */
async function secondGateway(t: ExecutionContext): Promise<TestKernel> {
  const second = await startTestKernel({
    plugins: SANDBOX_PLUGINS,
    chains: ALL_CHAINS,
    role: 'gateway',
    database: gw.database,
    config: { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': { ETH: '3000' } },
  });
  t.teardown(() => second.close());
  return second;
}

test('an event of a transaction still open holds back the later ones, so a cursor never passes over it', async (t) => {
  const account = await sandboxClient(gw);
  const db = gw.kernel.cradle.db;
  const outbox = gw.kernel.cradle.webhooksOutbox;
  const early = entry(account.projectId);
  const trxEarly = await db.transaction();
  try {
    await outbox.write(trxEarly, [early]);
    const late = entry(account.projectId);
    await db.transaction((trx) => outbox.write(trx, [late]));
    t.true(late.id > early.id);
    // The late event is committed, but the early one may still commit before it: nothing is served.
    const held = await stream(account, '?start=earliest');
    t.deepEqual(held.items, []);
    await trxEarly.commit();
    const both = await waitFor(
      async () => {
        const page = await stream(account, '?start=earliest&wait=5');
        return page.items.length === 2 && page;
      },
      60_000,
      'both events',
    );
    t.deepEqual(
      both.items.map((i) => i.event_id),
      [early.id, late.id],
    );
    t.is(both.next_cursor, late.id);
    t.is(both.items[0]!.body, early.body, 'the exact body');
  } finally {
    if (!trxEarly.isCompleted()) await trxEarly.rollback();
  }
});

test('order follows the writing transactions, not the event ids: a later id committed first comes first, and the cursor resumes after it', async (t) => {
  const account = await sandboxClient(gw);
  const db = gw.kernel.cradle.db;
  const outbox = gw.kernel.cradle.webhooksOutbox;
  const first = entry(account.projectId);
  const second = entry(account.projectId);
  // The transaction writing the later id starts (and takes its transaction id) first.
  const trxSecond = await db.transaction();
  await outbox.write(trxSecond, [second]);
  await trxSecond.commit();
  await db.transaction((trx) => outbox.write(trx, [first]));
  // Any transaction open on the server (other tests) holds the horizon back a moment: long-poll.
  const page = await stream(account, '?limit=1&wait=25');
  t.deepEqual(
    page.items.map((i) => i.event_id),
    [second.id],
  );
  const next = await stream(account, `?after=${page.next_cursor}&wait=25`);
  t.deepEqual(
    next.items.map((i) => i.event_id),
    [first.id],
    'the smaller id is not skipped',
  );
  const none = await stream(account, `?after=${first.id}`);
  t.deepEqual(none, { items: [], next_cursor: first.id });
});

test('start=latest gives the newest cursor; a long poll on one instance is answered by a write on another; other projects never appear', async (t) => {
  const account = await sandboxClient(gw);
  const other = await sandboxClient(gw);
  t.deepEqual(await stream(account, '?start=latest'), { items: [] });
  const seed = entry(account.projectId);
  await gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.webhooksOutbox.write(trx, [seed]));
  const head = await waitFor(
    async () => {
      const page = await stream(account, '?start=latest');
      return page.next_cursor && page;
    },
    60_000,
    'the newest cursor',
  );
  t.deepEqual(head, { items: [], next_cursor: seed.id });

  const second = await secondGateway(t);
  const polling = signedFetch(second.url, `/api/v1/sandbox/webhooks/stream?after=${seed.id}&wait=25`, { projectId: account.projectId, secret: account.secret });
  // Another project's event does not answer the poll.
  await gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.webhooksOutbox.write(trx, [entry(other.projectId)]));
  const invoice = await account.call('POST', '/invoices', { external_id: `poll-${Date.now()}`, coin: 'eth', amount_crypto: '0.01' });
  const detected = await account.call('POST', `/invoices/${invoice.body.id}/simulate-detect`, {});
  const answer = await polling;
  t.is(answer.status, 200);
  t.deepEqual(
    answer.body.items.map((i: { event_id: string }) => i.event_id),
    [detected.body.event_id],
  );
  await waitFor(async () => (await stream(other, '?start=earliest&wait=5')).items.length === 1, 60_000);
});

test('a cursor of another project or a removed event is 404 event_not_found; bad queries are 400; production projects use /webhooks/stream', async (t) => {
  const account = await sandboxClient(gw);
  const other = await sandboxClient(gw);
  const foreign = entry(other.projectId);
  await gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.webhooksOutbox.write(trx, [foreign]));
  const refused = await account.call('GET', `/webhooks/stream?after=${foreign.id}`);
  t.is(refused.status, 404);
  t.is(refused.body.error_code, 'event_not_found');
  for (const query of ['?wait=26', '?limit=0', '?after=nope', '?start=middle']) {
    const bad = await account.call('GET', `/webhooks/stream${query}`);
    t.is(bad.status, 400, query);
    t.is(bad.body.error_code, 'validation_error');
  }
  const production = await signedFetch(gw.url, '/api/v1/webhooks/stream', { projectId: account.projectId, secret: account.secret });
  t.is(production.status, 403);
});

test('a signed stream read sent again answers its first page, not events created since, on every instance (issue 33 item 14)', async (t) => {
  const account = await sandboxClient(gw);
  const first = entry(account.projectId);
  await gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.webhooksOutbox.write(trx, [first]));
  await waitFor(async () => (await stream(account, '?start=earliest&wait=5')).items.length === 1, 60_000, 'the first event');
  const captured = { projectId: account.projectId, secret: account.secret, timestamp: Math.floor(Date.now() / 1000) };
  const path = '/api/v1/sandbox/webhooks/stream?start=earliest';
  const original = await signedFetch(gw.url, path, captured);
  t.is(original.status, 200);
  t.deepEqual(
    original.body.items.map((i: { event_id: string }) => i.event_id),
    [first.id],
  );

  const later = entry(account.projectId);
  await gw.kernel.cradle.db.transaction((trx) => gw.kernel.cradle.webhooksOutbox.write(trx, [later]));
  await waitFor(async () => (await stream(account, `?after=${first.id}&wait=5`)).items.length === 1, 60_000, 'the later event');
  const second = await secondGateway(t);
  for (const base of [gw.url, second.url]) {
    const replayed = await signedFetch(base, path, captured);
    t.is(replayed.status, 200);
    t.deepEqual(replayed.body, original.body, 'the first page only');
    t.is(replayed.headers.get('idempotent-replayed'), 'true');
  }
});

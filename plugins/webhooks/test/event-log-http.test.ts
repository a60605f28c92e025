import test, { type ExecutionContext } from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { responseMismatches, signedFetch, waitFor, type TestKernel } from '@gw/kernel/testing';
import { verifyWebhook } from '@gw/webhook-verify';
import { confirmInvoice, expireInvoice, payInvoice } from '@gw/plugin-invoices/testing';
// The operator CLI itself (not a package dependency: the CLI app depends on this plugin).
import { ALL_CHAINS, cliRunner, FIXED_RATES, stopAll } from '@gw/testing';
import { FAST_RETRIES, projectWithPools, Receiver, startWebhooksKernel, WEBHOOK_PLUGINS, type TestProject } from './helpers.js';

let gw: TestKernel, receiver: Receiver, operatorId: string;
test.before(async () => {
  gw = await startWebhooksKernel();
  receiver = await Receiver.start();
  // Tests run concurrently: one reply rule for every path.
  receiver.reply = (r) => (r.path.startsWith('/hooks/down') ? { status: 503, body: 'maintenance' } : { status: 200, body: '{"ok":true}' });
  operatorId = (await gw.kernel.cradle.tenancyOperators.create('webhooks-event-log', CLI_ACTOR)).id;
});
test.after.always(() => stopAll(gw, receiver));

const EVENTS = '/api/v1/webhooks/events';
const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const UNKNOWN_ULID = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
const ENTRY_KEYS = [
  'id',
  'event_type',
  'signer',
  'mode',
  'project_id',
  'invoice_id',
  'original_event_id',
  'status',
  'target_url',
  'attempts',
  'next_attempt_at_iso',
  'last_attempt_at_iso',
  'last_http_status',
  'last_error',
  'delivered_at_iso',
  'created_at',
  'created_at_iso',
  'payload',
  'attempt_log',
].sort();
const RESEND_KEYS = ['event_id', 'original_event_id', 'event_type', 'project_id', 'invoice_id', 'target_url', 'created_at', 'created_at_iso'].sort();

const uid = () => Math.random().toString(36).slice(2);
const get = (p: TestProject, path: string, k: TestKernel = gw) => signedFetch(k.url, path, p);
const resend = (p: TestProject, eventId: string, k: TestKernel = gw) => signedFetch(k.url, `${EVENTS}/${eventId}/resend`, { ...p, method: 'POST' });

/** The response matches the OpenAPI schemas the route declares (errors included). */
function documented(t: ExecutionContext, method: 'GET' | 'POST', path: string, res: { status: number; body: unknown }, k: TestKernel = gw): void {
  t.deepEqual(responseMismatches(k.kernel, method, path, res.status, res.body), [], `${method} ${path} ${res.status}`);
}

async function invoice(p: TestProject, callbackPath: string | null, k: TestKernel = gw): Promise<{ id: string }> {
  const body = {
    external_id: `order-${uid()}`,
    amount_crypto: '0.01',
    coin: 'eth',
    ...(callbackPath === null ? {} : { callback_url: `${receiver.url}${callbackPath}` }),
  };
  const created = await signedFetch(k.url, '/api/v1/invoices', { ...p, method: 'POST', body });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return created.body;
}

/** The event id a state change caused the way the watchers cause them (through the invoice lifecycle). */
function sent(eventId: string | undefined): string {
  if (!eventId) throw new Error('no event emitted');
  return eventId;
}
/** A payment seen: `invoice.detected` (a short one with `short`). */
const detect = async (p: TestProject, invoiceId: string, k: TestKernel = gw, short = false) =>
  sent(await payInvoice(k.kernel.cradle, p.projectId, invoiceId, short ? { amountUnits: 10n ** 13n } : {}));
/** The payments confirm: `invoice.paid`. */
const pay = async (p: TestProject, invoiceId: string) => sent(await confirmInvoice(gw.kernel.cradle, p.projectId, invoiceId));
/** Nothing confirms before the deadline: `invoice.expired`. */
const expire = async (p: TestProject, invoiceId: string) => sent(await expireInvoice(gw.kernel.cradle, p.projectId, invoiceId));
/** Another short payment of a short invoice: `invoice.partial` without a status change, any number of times. */
const partial = async (p: TestProject, invoiceId: string) => sent(await payInvoice(gw.kernel.cradle, p.projectId, invoiceId, { amountUnits: 10n ** 13n }));

const eventRow = (id: string, k: TestKernel = gw) => k.kernel.cradle.db('webhooks_events').where({ id }).first();
interface StoredAttempt {
  attempt: number;
  started_at: Date;
  target_url: string;
  http_status: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
}
/**
 * An event's recorded attempts as stored: its attempt rows, and the delivering attempt its event
 * row carries alone (ADR 0013).
 */
const attemptRows = async (id: string, k: TestKernel = gw): Promise<StoredAttempt[]> =>
  (
    await k.kernel.cradle.db.raw<{ rows: StoredAttempt[] }>(
      `select attempt, started_at, target_url, http_status, latency_ms, error, response_excerpt from webhooks_attempts where event_id = :id
       union all
       select attempts, last_started_at, target_url, last_http_status, last_latency_ms, last_error, last_response_excerpt
         from webhooks_events e
        where id = :id and status = 'delivered' and not exists (select 1 from webhooks_attempts a where a.event_id = e.id and a.attempt = e.attempts)
       order by attempt`,
      { id },
    )
  ).rows;
const resendsOf = (id: string, k: TestKernel = gw) => k.kernel.cradle.db('webhooks_events').where({ original_event_id: id }).orderBy('id');

function waitStatus(id: string, status: string, k: TestKernel = gw, timeoutMs = 30_000) {
  return waitFor(
    async () => {
      const row = await eventRow(id, k);
      return row?.status === status && row;
    },
    timeoutMs,
    `event ${id} to be ${status}`,
  );
}

/** Every event of the project written and none awaiting a delivery; rows newest first. */
function settle(projectId: string, count: number): Promise<any[]> {
  return waitFor(
    async () => {
      const rows = await gw.kernel.cradle.db('webhooks_events').where({ project_id: projectId }).orderBy('id', 'desc');
      return rows.length === count && rows.every((r) => r.status !== 'retrying') && rows;
    },
    30_000,
    'the events to settle',
  );
}

/** GET the list; asserts 200 and the declared schema; returns the ids and the envelope. */
async function listIds(t: ExecutionContext, p: TestProject, query: string): Promise<{ ids: string[]; body: any }> {
  const res = await get(p, `${EVENTS}${query}`);
  t.is(res.status, 200, `${query}: ${JSON.stringify(res.body)}`);
  documented(t, 'GET', EVENTS, res);
  return { ids: res.body.items.map((i: { id: string }) => i.id), body: res.body };
}

const details = (value: unknown) => (typeof value === 'string' ? JSON.parse(value) : value);

// ---------------------------------------------------------------------------------------------
// GET /webhooks/events
// ---------------------------------------------------------------------------------------------

test("the log lists only the project's own events, newest first, each with its attempts and the delivered envelope", async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const ok = await invoice(p, '/hooks/list-ok');
  const down = await invoice(p, '/hooks/down-list');
  const bare = await invoice(p, null);
  const late = await invoice(p, '/hooks/list-late');
  const e1 = await detect(p, ok.id);
  const e2 = await detect(p, down.id);
  const e3 = await detect(p, bare.id);
  const e4 = await pay(p, ok.id);
  const e5 = await expire(p, late.id);
  const foreign = await detect(other, (await invoice(other, '/hooks/list-other')).id);
  const rows = await settle(p.projectId, 5);
  await settle(other.projectId, 1);

  const { ids, body } = await listIds(t, p, '');
  t.deepEqual(ids, [e5, e4, e3, e2, e1]);
  t.false('next_cursor' in body, 'one page: no next_cursor');
  t.false(ids.includes(foreign));
  t.deepEqual((await listIds(t, other, '')).ids, [foreign], "another project's log holds its own event only");

  const expected: Record<string, { status: string; event_type: string; invoice_id: string; path: string | null; attempts: number }> = {
    [e1]: { status: 'delivered', event_type: 'invoice.detected', invoice_id: ok.id, path: '/hooks/list-ok', attempts: 1 },
    [e2]: { status: 'dlq', event_type: 'invoice.detected', invoice_id: down.id, path: '/hooks/down-list', attempts: 3 },
    [e3]: { status: 'skipped', event_type: 'invoice.detected', invoice_id: bare.id, path: null, attempts: 0 },
    [e4]: { status: 'delivered', event_type: 'invoice.paid', invoice_id: ok.id, path: '/hooks/list-ok', attempts: 1 },
    [e5]: { status: 'delivered', event_type: 'invoice.expired', invoice_id: late.id, path: '/hooks/list-late', attempts: 1 },
  };
  for (const [i, item] of (body.items as any[]).entries()) {
    const want = expected[item.id]!;
    const row = rows[i];
    t.is(row.id, item.id);
    t.deepEqual(Object.keys(item).sort(), ENTRY_KEYS, item.id);
    t.like(item, {
      event_type: want.event_type,
      mode: 'testnet',
      project_id: p.projectId,
      invoice_id: want.invoice_id,
      original_event_id: null,
      status: want.status,
      target_url: want.path === null ? null : `${receiver.url}${want.path}`,
      attempts: want.attempts,
      next_attempt_at_iso: null,
    });
    t.true(Number.isInteger(item.created_at));
    t.is(item.created_at_iso, new Date(row.created_at).toISOString());
    t.is(item.created_at, Math.floor(Date.parse(item.created_at_iso) / 1000));
    // The payload is the envelope of spec 2.5, byte for byte what the receiver got.
    t.deepEqual(item.payload, JSON.parse(row.body));
    t.like(item.payload, {
      event_id: item.id,
      event_type: want.event_type,
      mode: 'testnet',
      created_at_iso: item.created_at_iso,
      data: { invoice_id: want.invoice_id },
    });
    t.false('original_event_id' in item.payload);
    const received = receiver.forEvent(item.id);
    t.is(received.length, want.attempts, `${item.id} requests`);
    for (const request of received) t.deepEqual(JSON.parse(request.body), item.payload);
    // One attempt_log entry per attempt, in order, as recorded.
    const attempts = await attemptRows(item.id);
    t.is(item.attempt_log.length, want.attempts);
    t.deepEqual(
      item.attempt_log,
      attempts.map((a) => ({
        attempt: a.attempt,
        started_at_iso: new Date(a.started_at).toISOString(),
        target_url: a.target_url,
        http_status: a.http_status,
        latency_ms: a.latency_ms,
        error: a.error,
        response_excerpt: a.response_excerpt,
      })),
    );
    if (want.status === 'delivered') {
      t.like(item, { last_http_status: 200, last_error: null });
      t.like(item.attempt_log[0], { attempt: 1, http_status: 200, error: null, response_excerpt: '{"ok":true}', target_url: item.target_url });
      t.is(item.delivered_at_iso, new Date(row.delivered_at).toISOString());
      t.is(item.last_attempt_at_iso, new Date(row.last_attempt_at).toISOString());
    } else if (want.status === 'dlq') {
      t.like(item, { last_http_status: 503, last_error: 'HTTP 503', delivered_at_iso: null });
      t.deepEqual(
        item.attempt_log.map((a: any) => [a.attempt, a.http_status, a.response_excerpt]),
        [
          [1, 503, 'maintenance'],
          [2, 503, 'maintenance'],
          [3, 503, 'maintenance'],
        ],
      );
    } else {
      t.like(item, { last_http_status: null, last_error: null, delivered_at_iso: null, last_attempt_at_iso: null, attempt_log: [] });
    }
  }
});

test('filters: status, event_type, since (date and date-time), invoice_id, and their combinations', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const ok = await invoice(p, '/hooks/filter-ok');
  const down = await invoice(p, '/hooks/down-filter');
  const bare = await invoice(p, null);
  const e1 = await detect(p, ok.id);
  const e2 = await detect(p, down.id);
  const e3 = await detect(p, bare.id);
  const e4 = await pay(p, ok.id);
  const e5 = await expire(p, bare.id);
  const otherInvoice = await invoice(other, null);
  await detect(other, otherInvoice.id);
  const rows = await settle(p.projectId, 5);
  const created = new Map(rows.map((r) => [r.id as string, new Date(r.created_at)]));
  const ids = async (query: string) => (await listIds(t, p, query)).ids;

  t.deepEqual(await ids('?status=delivered'), [e4, e1]);
  t.deepEqual(await ids('?status=dlq'), [e2]);
  t.deepEqual(await ids('?status=skipped'), [e5, e3]);
  t.deepEqual(await ids('?status=retrying'), []);
  t.deepEqual(await ids('?event_type=invoice.detected'), [e3, e2, e1]);
  t.deepEqual(await ids('?event_type=invoice.paid'), [e4]);
  t.deepEqual(await ids('?event_type=invoice.expired'), [e5]);
  t.deepEqual(await ids('?event_type=invoice.reverted'), []);
  t.deepEqual(await ids(`?invoice_id=${ok.id}`), [e4, e1]);
  t.deepEqual(await ids(`?invoice_id=${bare.id}`), [e5, e3]);
  t.deepEqual(await ids(`?invoice_id=${otherInvoice.id}`), [], "another project's invoice finds nothing");
  t.deepEqual(await ids(`?invoice_id=${UNKNOWN_ULID}`), []);

  // since: created at or after; a date is 00:00 UTC of that day; no offset means UTC.
  const atOrAfter = (instant: Date) => rows.filter((r) => created.get(r.id)!.getTime() >= instant.getTime()).map((r) => r.id);
  const firstDay = created.get(e1)!.toISOString().slice(0, 10);
  const dayAfter = new Date(Date.parse(`${created.get(e5)!.toISOString().slice(0, 10)}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  t.deepEqual(await ids(`?since=${firstDay}`), [e5, e4, e3, e2, e1]);
  t.deepEqual(await ids(`?since=${dayAfter}`), []);
  const third = created.get(e3)!;
  t.deepEqual(await ids(`?since=${third.toISOString()}`), atOrAfter(third));
  t.true(atOrAfter(third).includes(e3) && !atOrAfter(third).includes(e1));
  const justAfter = new Date(third.getTime() + 1);
  t.deepEqual(await ids(`?since=${justAfter.toISOString()}`), atOrAfter(justAfter));
  t.false((await ids(`?since=${justAfter.toISOString()}`)).includes(e3));
  t.deepEqual(await ids(`?since=${third.toISOString().slice(0, -1)}`), atOrAfter(third), 'no offset: UTC');
  const plus0530 = `${new Date(third.getTime() + 330 * 60_000).toISOString().slice(0, 23)}+05:30`;
  t.deepEqual(await ids(`?since=${encodeURIComponent(plus0530)}`), atOrAfter(third), 'an explicit offset');

  // Filters combine with AND.
  t.deepEqual(await ids('?status=delivered&event_type=invoice.detected'), [e1]);
  t.deepEqual(await ids(`?status=delivered&event_type=invoice.paid&invoice_id=${ok.id}`), [e4]);
  t.deepEqual(await ids(`?status=dlq&invoice_id=${ok.id}`), []);
  t.deepEqual(
    await ids(`?status=skipped&since=${created.get(e4)!.toISOString()}`),
    atOrAfter(created.get(e4)!).filter((id) => id === e3 || id === e5),
  );
  t.deepEqual(await ids(`?event_type=invoice.detected&since=${created.get(e2)!.toISOString()}&invoice_id=${down.id}`), [e2]);
  // ... and with pagination.
  const first = await listIds(t, p, '?event_type=invoice.detected&limit=2');
  t.deepEqual(first.ids, [e3, e2]);
  t.is(first.body.next_cursor, e2);
  const second = await listIds(t, p, `?event_type=invoice.detected&limit=2&cursor=${first.body.next_cursor}`);
  t.deepEqual(second.ids, [e1]);
  t.false('next_cursor' in second.body);
});

test('cursor pagination: pages never overlap and stay stable while new events are written between fetches', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(p, null);
  const ids = [await detect(p, inv.id, gw, true)];
  for (let i = 0; i < 6; i += 1) ids.push(await partial(p, inv.id));
  const newestFirst = [...ids].reverse();

  const page1 = await listIds(t, p, '?limit=3');
  t.deepEqual(page1.ids, newestFirst.slice(0, 3));
  t.is(page1.body.next_cursor, newestFirst[2]);
  const extra1 = await partial(p, inv.id);
  const page2 = await listIds(t, p, `?limit=3&cursor=${page1.body.next_cursor}`);
  t.deepEqual(page2.ids, newestFirst.slice(3, 6), 'an event written meanwhile shifts nothing');
  t.is(page2.body.next_cursor, newestFirst[5]);
  const extra2 = await partial(p, inv.id);
  const page3 = await listIds(t, p, `?limit=3&cursor=${page2.body.next_cursor}`);
  t.deepEqual(page3.ids, newestFirst.slice(6));
  t.false('next_cursor' in page3.body, 'last page: no next_cursor');
  const all = [...page1.ids, ...page2.ids, ...page3.ids];
  t.deepEqual(all, newestFirst);
  t.is(new Set(all).size, all.length, 'no event on two pages');

  // The new events are on a fresh first page; a page exactly as long as the rest has no cursor.
  t.deepEqual((await listIds(t, p, '?limit=3')).ids, [extra2, extra1, newestFirst[0]]);
  t.false('next_cursor' in (await listIds(t, p, '?limit=9')).body);
  t.is((await listIds(t, p, '?limit=8')).body.next_cursor, newestFirst[5]);
  t.deepEqual((await listIds(t, p, `?limit=1&cursor=${newestFirst[6]}`)).ids, [], 'nothing older than the oldest');
  const byOne: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listIds(t, p, `?limit=1&event_type=invoice.partial${cursor ? `&cursor=${cursor}` : ''}`);
    byOne.push(...page.ids);
    cursor = page.body.next_cursor;
  } while (cursor);
  t.deepEqual(byOne, [extra2, extra1, ...newestFirst.slice(0, 6)]);
  t.is((await get(p, `${EVENTS}?limit=200`)).status, 200);
  t.is((await get(p, `${EVENTS}?limit=1`)).body.items.length, 1);
});

test('bad queries are 400 validation_error naming the field', async (t) => {
  const p = await projectWithPools(gw, operatorId, [], 'testnet');
  const cases: [string, string][] = [
    ['?colour=red', 'query.colour'],
    ['?project_id=01ARZ3NDEKTSV4RRFFQ69G5FAV', 'query.project_id'],
    ['?status=settled', 'query.status'],
    ['?status=Delivered', 'query.status'],
    ['?event_type=invoice.created', 'query.event_type'],
    ['?event_type=paid', 'query.event_type'],
    ['?limit=0', 'query.limit'],
    ['?limit=201', 'query.limit'],
    ['?limit=1.5', 'query.limit'],
    ['?limit=abc', 'query.limit'],
    ['?limit=-1', 'query.limit'],
    ['?cursor=nope', 'query.cursor'],
    ['?cursor=01arz3ndektsv4rrffq69g5fav', 'query.cursor'],
    ['?cursor=01ARZ3NDEKTSV4RRFFQ69G5FA', 'query.cursor'],
    ['?invoice_id=123', 'query.invoice_id'],
    ['?invoice_id=01ARZ3NDEKTSV4RRFFQ69G5FAVX', 'query.invoice_id'],
    ['?since=yesterday', 'query.since'],
    ['?since=1700000000', 'query.since'],
    ['?since=2026-02-31', 'query.since'],
    ['?since=2026-02-31T10:00:00Z', 'query.since'],
    ['?since=2026-13-01T00:00:00Z', 'query.since'],
    ['?since=2026-01-01T25:00:00Z', 'query.since'],
    ['?status=delivered&limit=0', 'query.limit'],
    ['?status=delivered&status=dlq', 'query.status'],
    ['?limit=', 'query.limit'],
    ['?since=', 'query.since'],
    ['?cursor=', 'query.cursor'],
  ];
  for (const [query, field] of cases) {
    const res = await get(p, `${EVENTS}${query}`);
    t.is(res.status, 400, query);
    t.is(res.body.error_code, 'validation_error', query);
    t.is(res.body.details?.field, field, query);
    documented(t, 'GET', EVENTS, res);
  }
  for (const query of ['?limit=200', '?limit=1', '?since=2024-02-29', '?since=2026-01-01T00:00', '?since=2026-01-01T00:00:00.123456Z']) {
    t.is((await get(p, `${EVENTS}${query}`)).status, 200, query);
  }
});

// ---------------------------------------------------------------------------------------------
// GET /webhooks/events/{event_id}
// ---------------------------------------------------------------------------------------------

test("GET one event: 200 for the project's own event; 404 event_not_found for another project's, an unknown or a non-ULID id", async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(p, '/hooks/get-one');
  const eventId = await detect(p, inv.id);
  const foreign = await detect(other, (await invoice(other, null)).id);
  await waitStatus(eventId, 'delivered');

  const res = await get(p, `${EVENTS}/${eventId}`);
  t.is(res.status, 200);
  documented(t, 'GET', `${EVENTS}/${eventId}`, res);
  t.deepEqual(Object.keys(res.body).sort(), ENTRY_KEYS);
  t.like(res.body, { id: eventId, project_id: p.projectId, invoice_id: inv.id, status: 'delivered', attempts: 1, target_url: `${receiver.url}/hooks/get-one` });
  t.deepEqual(res.body.payload, JSON.parse(receiver.forEvent(eventId)[0]!.body));
  t.is(res.body.attempt_log.length, 1);
  t.deepEqual([res.body], (await listIds(t, p, '')).body.items, 'the same entry as in the list');
  t.is((await get(other, `${EVENTS}/${foreign}`)).status, 200);

  for (const id of [foreign, UNKNOWN_ULID, 'not-a-ulid', UNKNOWN_ULID.toLowerCase(), `${UNKNOWN_ULID}X`, 'A'.repeat(300)]) {
    const missing = await get(p, `${EVENTS}/${id}`);
    t.is(missing.status, 404, id.slice(0, 40));
    t.is(missing.body.error_code, 'event_not_found', id.slice(0, 40));
    documented(t, 'GET', `${EVENTS}/${id}`, missing);
  }
});

// ---------------------------------------------------------------------------------------------
// POST /webhooks/events/{event_id}/resend
// ---------------------------------------------------------------------------------------------

/** Checks a 202 resend result (spec 2.4) and returns it. */
function checkResend(
  t: ExecutionContext,
  res: { status: number; body: any },
  originalId: string,
  expected: { project: TestProject; invoiceId: string; eventType: string; target: string | null },
  k: TestKernel = gw,
  since = 0,
): any {
  t.is(res.status, 202, JSON.stringify(res.body));
  documented(t, 'POST', `${EVENTS}/${originalId}/resend`, res, k);
  t.deepEqual(Object.keys(res.body).sort(), RESEND_KEYS);
  t.regex(res.body.event_id, ULID);
  t.not(res.body.event_id, originalId, 'a fresh event_id');
  t.like(res.body, {
    original_event_id: originalId,
    event_type: expected.eventType,
    project_id: expected.project.projectId,
    invoice_id: expected.invoiceId,
    target_url: expected.target,
  });
  t.true(Number.isInteger(res.body.created_at));
  t.is(res.body.created_at, Math.floor(Date.parse(res.body.created_at_iso) / 1000));
  t.is(new Date(res.body.created_at_iso).toISOString(), res.body.created_at_iso);
  t.true(Date.parse(res.body.created_at_iso) >= since && Date.parse(res.body.created_at_iso) <= Date.now());
  return res.body;
}

/** The resend's delivery: signed, fresh event_id, original_event_id set, the original's data. */
async function checkResentDelivery(t: ExecutionContext, p: TestProject, result: any, original: any, path: string) {
  const [request] = await waitFor(
    async () => receiver.forEvent(result.event_id).length > 0 && receiver.forEvent(result.event_id),
    20_000,
    'the resend to arrive',
  );
  t.is(request!.path, path);
  t.true(verifyWebhook({ header: String(request!.headers['x-service-signature']), rawBody: request!.body, secrets: [p.secret] }).ok);
  t.is(request!.headers['x-service-event-type'], original.event_type);
  const envelope = JSON.parse(request!.body);
  t.deepEqual(Object.keys(envelope).sort(), ['created_at_iso', 'data', 'event_id', 'event_type', 'mode', 'original_event_id']);
  t.like(envelope, {
    event_id: result.event_id,
    original_event_id: original.event_id,
    event_type: original.event_type,
    mode: original.mode,
    created_at_iso: result.created_at_iso,
  });
  t.deepEqual(envelope.data, original.data, 'the original payload');
  return envelope;
}

test('resend of a delivered event: 202 with the fields of spec 2.4; a new event is delivered with the same data; the original row is unchanged; audited', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(p, '/hooks/resend-delivered');
  const originalId = await detect(p, inv.id);
  const before = await waitStatus(originalId, 'delivered');
  const attemptsBefore = await attemptRows(originalId);
  const original = JSON.parse(before.body);

  const since = Date.now();
  const res = await resend(p, originalId);
  const result = checkResend(
    t,
    res,
    originalId,
    { project: p, invoiceId: inv.id, eventType: 'invoice.detected', target: `${receiver.url}/hooks/resend-delivered` },
    gw,
    since,
  );
  const envelope = await checkResentDelivery(t, p, result, original, '/hooks/resend-delivered');
  const fresh = await waitStatus(result.event_id, 'delivered');
  t.like(fresh, { original_event_id: originalId, project_id: p.projectId, invoice_id: inv.id, event_type: 'invoice.detected', mode: 'testnet', attempts: 1 });
  t.deepEqual(JSON.parse(fresh.body), envelope, 'the row holds the body sent');

  t.deepEqual(await eventRow(originalId), before, 'the original row is never changed');
  t.deepEqual(await attemptRows(originalId), attemptsBefore);
  t.is(receiver.forEvent(originalId).length, 1, 'the original is not sent again');

  // The log shows both; the new entry names the original and carries the envelope sent.
  const listed = await listIds(t, p, '');
  t.deepEqual(listed.ids, [result.event_id, originalId]);
  t.like(listed.body.items[0], { original_event_id: originalId, status: 'delivered', target_url: result.target_url });
  t.deepEqual(listed.body.items[0].payload, envelope);
  t.is(listed.body.items[1].original_event_id, null);

  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: p.projectId, action: 'webhook.resend' });
  t.is(audit.length, 1);
  t.like(audit[0], { channel: 'rest', target: `webhook_event:${result.event_id}`, request_id: res.headers.get('x-request-id') });
  t.regex(audit[0].actor, /^api_key:/);
  t.like(details(audit[0].details), { original_event_id: originalId, target_url: result.target_url });

  // Each resend is its own event.
  const again = checkResend(t, await resend(p, originalId), originalId, {
    project: p,
    invoiceId: inv.id,
    eventType: 'invoice.detected',
    target: result.target_url,
  });
  t.not(again.event_id, result.event_id);
  await checkResentDelivery(t, p, again, original, '/hooks/resend-delivered');
  t.deepEqual(
    (await resendsOf(originalId)).map((r) => r.id),
    [result.event_id, again.event_id],
  );
});

test('the target is re-resolved at resend time: a skipped event goes to the default URL set since; callback_url wins over the default', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const { tenancyProjects } = gw.kernel.cradle;
  const bare = await invoice(p, null);
  const skippedId = await detect(p, bare.id);
  const before = await eventRow(skippedId);
  t.like(before, { status: 'skipped', target_url: null, attempts: 0 });
  const original = JSON.parse(before.body);

  // Still no target: the resend is written, skipped, and nothing is sent.
  const none = checkResend(t, await resend(p, skippedId), skippedId, { project: p, invoiceId: bare.id, eventType: 'invoice.detected', target: null });
  t.like(await eventRow(none.event_id), { status: 'skipped', target_url: null, original_event_id: skippedId });

  const firstUrl = `${receiver.url}/hooks/default-${uid()}`;
  await tenancyProjects.setWebhookUrl(p.projectId, firstUrl, CLI_ACTOR);
  const first = checkResend(t, await resend(p, skippedId), skippedId, { project: p, invoiceId: bare.id, eventType: 'invoice.detected', target: firstUrl });
  await checkResentDelivery(t, p, first, original, new URL(firstUrl).pathname);
  await waitStatus(first.event_id, 'delivered');

  // The default changes again: a resend (of the original or of a resend) follows it.
  const secondUrl = `${receiver.url}/hooks/default-${uid()}`;
  await tenancyProjects.setWebhookUrl(p.projectId, secondUrl, CLI_ACTOR);
  const second = checkResend(t, await resend(p, skippedId), skippedId, { project: p, invoiceId: bare.id, eventType: 'invoice.detected', target: secondUrl });
  await checkResentDelivery(t, p, second, original, new URL(secondUrl).pathname);
  const ofResend = checkResend(t, await resend(p, first.event_id), first.event_id, {
    project: p,
    invoiceId: bare.id,
    eventType: 'invoice.detected',
    target: secondUrl,
  });
  const [request] = await waitFor(async () => receiver.forEvent(ofResend.event_id).length > 0 && receiver.forEvent(ofResend.event_id));
  t.is(request!.path, new URL(secondUrl).pathname);
  t.like(JSON.parse(request!.body), { event_id: ofResend.event_id, original_event_id: first.event_id, data: original.data });
  t.is(receiver.forEvent(skippedId).length, 0, 'the skipped original itself is never sent');
  t.deepEqual(await eventRow(skippedId), before, 'the original row is never changed');

  // An invoice's callback_url wins over the project's default.
  const withCallback = await invoice(p, '/hooks/resend-callback');
  const cbEvent = await detect(p, withCallback.id);
  await waitStatus(cbEvent, 'delivered');
  const cb = checkResend(t, await resend(p, cbEvent), cbEvent, {
    project: p,
    invoiceId: withCallback.id,
    eventType: 'invoice.detected',
    target: `${receiver.url}/hooks/resend-callback`,
  });
  await checkResentDelivery(t, p, cb, JSON.parse((await eventRow(cbEvent)).body), '/hooks/resend-callback');
});

test('resend of a dead-lettered event: 202, the new event goes out; the dlq row is unchanged', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(p, '/hooks/down-resend');
  const originalId = await detect(p, inv.id);
  const before = await waitStatus(originalId, 'dlq');
  const attemptsBefore = await attemptRows(originalId);
  t.is(attemptsBefore.length, 3);

  const result = checkResend(t, await resend(p, originalId), originalId, {
    project: p,
    invoiceId: inv.id,
    eventType: 'invoice.detected',
    target: `${receiver.url}/hooks/down-resend`,
  });
  await checkResentDelivery(t, p, result, JSON.parse(before.body), '/hooks/down-resend');
  const fresh = await waitFor(async () => {
    const row = await eventRow(result.event_id);
    return row?.attempts >= 1 && row;
  });
  t.like(fresh, { original_event_id: originalId, last_http_status: 503 });
  t.deepEqual(await eventRow(originalId), before, 'the original row is never changed');
  t.deepEqual(await attemptRows(originalId), attemptsBefore);
  t.is(receiver.forEvent(originalId).length, 3);
});

test('resend of an event still retrying (503, long retry delay): 202, the new event goes out; the original is unchanged', async (t) => {
  const slow = await startWebhooksKernel({ 'plugins.webhooks.retryBaseSeconds': 3600, 'plugins.webhooks.maxAttempts': 17 });
  t.teardown(() => slow.close());
  const operator = (await slow.kernel.cradle.tenancyOperators.create('webhooks-event-log-slow', CLI_ACTOR)).id;
  const p = await projectWithPools(slow, operator, ['eth'], 'testnet');
  const inv = await invoice(p, '/hooks/down-retrying', slow);
  const originalId = await detect(p, inv.id, slow);
  const before = await waitFor(async () => {
    const row = await eventRow(originalId, slow);
    return row?.status === 'retrying' && row.attempts === 1 && row;
  });
  const attemptsBefore = await attemptRows(originalId, slow);
  const retrying = await signedFetch(slow.url, `${EVENTS}?status=retrying`, p);
  t.is(retrying.status, 200);
  documented(t, 'GET', EVENTS, retrying, slow);
  t.deepEqual(
    retrying.body.items.map((i: any) => i.id),
    [originalId],
  );
  t.like(retrying.body.items[0], { status: 'retrying', attempts: 1, last_http_status: 503 });
  t.true(Date.parse(retrying.body.items[0].next_attempt_at_iso) > Date.now() + 2000 * 1000, 'the next attempt is far away');

  const result = checkResend(
    t,
    await resend(p, originalId, slow),
    originalId,
    { project: p, invoiceId: inv.id, eventType: 'invoice.detected', target: `${receiver.url}/hooks/down-retrying` },
    slow,
  );
  await checkResentDelivery(t, p, result, JSON.parse(before.body), '/hooks/down-retrying');
  await waitFor(async () => (await eventRow(result.event_id, slow))?.attempts >= 1);
  t.deepEqual(await eventRow(originalId, slow), before, 'the original row is never changed');
  t.deepEqual(await attemptRows(originalId, slow), attemptsBefore);
  t.is(receiver.forEvent(originalId).length, 1);
});

test("resend: 404 event_not_found for a non-ULID, an unknown and another project's event; nothing written", async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const foreign = await detect(other, (await invoice(other, null)).id);
  const foreignBefore = await eventRow(foreign);
  for (const id of [foreign, UNKNOWN_ULID, 'not-a-ulid', UNKNOWN_ULID.toLowerCase(), '12345', 'A'.repeat(300)]) {
    const res = await resend(p, id);
    t.is(res.status, 404, id.slice(0, 40));
    t.is(res.body.error_code, 'event_not_found', id.slice(0, 40));
    documented(t, 'POST', `${EVENTS}/${id}/resend`, res);
  }
  const { db } = gw.kernel.cradle;
  t.is((await db('webhooks_events').where({ project_id: p.projectId })).length, 0, 'no event written');
  t.is((await resendsOf(foreign)).length, 0);
  t.deepEqual(await eventRow(foreign), foreignBefore);
  t.is((await db('kernel_audit_log').where({ action: 'webhook.resend' }).whereIn('project_id', [p.projectId, other.projectId])).length, 0, 'nothing audited');
});

test('a replayed resend (the same signed request again, within the window) answers the first answer and creates no event (issue 26 finding 3, issue 33 item 2)', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(p, '/hooks/resend-replay');
  const originalId = await detect(p, inv.id);
  const captured = { ...p, method: 'POST', timestamp: Math.floor(Date.now() / 1000) };
  const first = await signedFetch(gw.url, `${EVENTS}/${originalId}/resend`, captured);
  t.is(first.status, 202);
  for (let i = 0; i < 3; i++) {
    const replay = await signedFetch(gw.url, `${EVENTS}/${originalId}/resend`, captured);
    t.is(replay.status, 202);
    t.deepEqual(replay.body, first.body, 'the first answer: the same fresh event id');
    t.is(replay.headers.get('idempotent-replayed'), 'true');
    documented(t, 'POST', `${EVENTS}/${originalId}/resend`, replay);
  }
  t.deepEqual(
    (await resendsOf(originalId)).map((r) => r.id),
    [first.body.event_id],
    'one new event, from the first request only',
  );
  t.is((await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: p.projectId, action: 'webhook.resend' })).length, 1);
});

test('resend: 429 rate_limit_exceeded with Retry-After beyond the per-project limit; nothing written', async (t) => {
  const limited = await startWebhooksKernel({ 'plugins.webhooks.resendRateLimitPerMinute': 2 });
  t.teardown(() => limited.close());
  const operator = (await limited.kernel.cradle.tenancyOperators.create('webhooks-event-log-limit', CLI_ACTOR)).id;
  const p = await projectWithPools(limited, operator, ['eth'], 'testnet');
  const q = await projectWithPools(limited, operator, ['eth'], 'testnet');
  const inv = await invoice(p, null, limited);
  const originalId = await detect(p, inv.id, limited);
  const otherId = await detect(q, (await invoice(q, null, limited)).id, limited);
  // The limit counts in fixed one-minute windows: keep the three calls inside one.
  await waitFor(async () => new Date().getUTCSeconds() < 45, 20_000, 'the start of a minute');

  for (let i = 0; i < 2; i += 1) {
    checkResend(t, await resend(p, originalId, limited), originalId, { project: p, invoiceId: inv.id, eventType: 'invoice.detected', target: null }, limited);
  }
  const refused = await resend(p, originalId, limited);
  t.is(refused.status, 429);
  t.is(refused.body.error_code, 'rate_limit_exceeded');
  documented(t, 'POST', `${EVENTS}/${originalId}/resend`, refused, limited);
  const retryAfter = Number(refused.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${refused.headers.get('retry-after')}`);
  t.is((await resendsOf(originalId, limited)).length, 2, 'the refused resend wrote no event');
  t.is((await limited.kernel.cradle.db('kernel_audit_log').where({ project_id: p.projectId, action: 'webhook.resend' })).length, 2);
  // Per project: another project still resends; reading the log is not limited.
  t.is((await resend(q, otherId, limited)).status, 202);
  t.is((await signedFetch(limited.url, EVENTS, p)).status, 200);
});

// ---------------------------------------------------------------------------------------------
// Operator CLI
// ---------------------------------------------------------------------------------------------

const cliBase = {
  plugins: WEBHOOK_PLUGINS,
  chains: ALL_CHAINS,
  databaseUrl: () => gw.database.url,
};
const rates = { 'plugins.rates.providers': ['fixed'], 'plugins.rates.fixed': FIXED_RATES };
const run = cliRunner({ ...cliBase, overrides: () => ({ ...rates, ...FAST_RETRIES }) });
const runDefaults = cliRunner({ ...cliBase, overrides: () => rates });
const cli = (...argv: string[]) => run(...argv, '--json');

test('CLI webhook list and show print the delivery log of the REST API, with its filters', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const ok = await invoice(p, '/hooks/cli-list');
  const bare = await invoice(p, null);
  const e1 = await detect(p, ok.id);
  const e2 = await detect(p, bare.id);
  const e3 = await pay(p, ok.id);
  const foreign = await detect(other, (await invoice(other, null)).id);
  await settle(p.projectId, 3);

  const rest = await get(p, EVENTS);
  const listed = await cli('webhook', 'list', '--project', p.projectId);
  t.is(listed.code, 0, listed.stdout);
  t.deepEqual(listed.json, rest.body);
  t.deepEqual(
    listed.json.items.map((i: any) => i.id),
    [e3, e2, e1],
  );

  const ids = async (...flags: string[]) => {
    const res = await cli('webhook', 'list', '--project', p.projectId, ...flags);
    t.is(res.code, 0, res.stdout);
    return res.json.items.map((i: any) => i.id);
  };
  t.deepEqual(await ids('--status', 'skipped'), [e2]);
  t.deepEqual(await ids('--status', 'delivered'), [e3, e1]);
  t.deepEqual(await ids('--event-type', 'invoice.paid'), [e3]);
  t.deepEqual(await ids('--invoice', ok.id), [e3, e1]);
  t.deepEqual(await ids('--invoice', ok.id, '--event-type', 'invoice.detected'), [e1]);
  const page = await cli('webhook', 'list', '--project', p.projectId, '--limit', '2');
  t.deepEqual(
    page.json.items.map((i: any) => i.id),
    [e3, e2],
  );
  t.is(page.json.next_cursor, e2);
  t.deepEqual(await ids('--limit', '2', '--cursor', page.json.next_cursor), [e1]);

  const shown = await cli('webhook', 'show', '--project', p.projectId, '--event', e1);
  t.is(shown.code, 0);
  t.deepEqual(shown.json, { event: (await get(p, `${EVENTS}/${e1}`)).body });
  t.like(shown.json.event, { id: e1, status: 'delivered', attempts: 1 });

  const failures: [string[], number, string][] = [
    [['webhook', 'show', '--project', p.projectId, '--event', foreign], 1, 'event_not_found'],
    [['webhook', 'show', '--project', p.projectId, '--event', UNKNOWN_ULID], 1, 'event_not_found'],
    [['webhook', 'show', '--project', p.projectId, '--event', 'nope'], 2, 'usage'],
    [['webhook', 'show', '--project', p.projectId], 2, 'usage'],
    [['webhook', 'list', '--project', UNKNOWN_ULID], 1, 'project_not_found'],
    [['webhook', 'list', '--project', 'nope'], 2, 'usage'],
    [['webhook', 'list'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--status', 'settled'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--event-type', 'invoice.created'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--limit', '0'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--limit', '201'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--limit', '1.5'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--cursor', 'nope'], 2, 'usage'],
    [['webhook', 'list', '--project', p.projectId, '--invoice', '123'], 2, 'usage'],
  ];
  for (const [argv, code, error] of failures) {
    const res = await cli(...argv);
    t.is(res.code, code, argv.join(' '));
    t.is(res.json?.error_code, error, argv.join(' '));
  }
});

test('CLI webhook resend: a new event to the target resolved now, audited as the operator on the cli channel', async (t) => {
  const p = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const other = await projectWithPools(gw, operatorId, ['eth'], 'testnet');
  const inv = await invoice(p, '/hooks/cli-resend');
  const originalId = await detect(p, inv.id);
  const before = await waitStatus(originalId, 'delivered');
  const foreign = await detect(other, (await invoice(other, null)).id);

  const res = await cli('webhook', 'resend', '--project', p.projectId, '--event', originalId);
  t.is(res.code, 0, res.stdout);
  t.deepEqual(Object.keys(res.json), ['resend']);
  const result = res.json.resend;
  t.deepEqual(Object.keys(result).sort(), RESEND_KEYS);
  t.regex(result.event_id, ULID);
  t.like(result, {
    original_event_id: originalId,
    event_type: 'invoice.detected',
    project_id: p.projectId,
    invoice_id: inv.id,
    target_url: `${receiver.url}/hooks/cli-resend`,
  });
  await checkResentDelivery(t, p, result, JSON.parse(before.body), '/hooks/cli-resend');
  t.deepEqual(await eventRow(originalId), before);
  const audit = await gw.kernel.cradle.db('kernel_audit_log').where({ project_id: p.projectId, action: 'webhook.resend' });
  t.is(audit.length, 1);
  t.like(audit[0], { channel: 'cli', actor: 'operator-cli', target: `webhook_event:${result.event_id}` });
  t.like(details(audit[0].details), { original_event_id: originalId });

  // Another project's event through this project, or an unknown one: event_not_found, nothing written.
  for (const id of [foreign, UNKNOWN_ULID]) {
    const missing = await cli('webhook', 'resend', '--project', p.projectId, '--event', id);
    t.is(missing.code, 1, id);
    t.is(missing.json.error_code, 'event_not_found', id);
  }
  t.is((await resendsOf(foreign)).length, 0);
  t.is((await cli('webhook', 'resend', '--project', p.projectId, '--event', 'nope')).code, 2);
});

test('CLI webhook schedule prints the retry schedule of the configuration', async (t) => {
  const fast = await cli('webhook', 'schedule');
  t.is(fast.code, 0);
  t.deepEqual(fast.json, { attempts: 3, timeout_ms: 2000, jitter: 0, delays_seconds: [1, 2], total_seconds: 3 });
  const defaults = await runDefaults('webhook', 'schedule', '--json');
  t.is(defaults.code, 0);
  const delays = [30, 60, 120, 240, 480, 960, 1920, 3840, 7680, 15_360, 30_720, 43_200, 43_200, 43_200, 43_200, 43_200];
  t.deepEqual(defaults.json, { attempts: 17, timeout_ms: 10_000, jitter: 0.2, delays_seconds: delays, total_seconds: 277_410 });
  const text = await runDefaults('webhook', 'schedule');
  t.is(text.code, 0);
  t.true(text.stdout.includes('277410'), text.stdout);
});

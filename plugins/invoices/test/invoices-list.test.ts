import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { signedFetch, type TestKernel } from '@gw/kernel/testing';
import Value from 'typebox/value';
import { ulid } from 'ulid';
import { InvoiceListSchema } from '../src/index.js';
import { projectWithPools, startInvoicesKernel, type TestProject } from './helpers.js';

let gw: TestKernel;
let p: TestProject;
let other: TestProject;
const created: any[] = [];
test.before(async () => {
  gw = await startInvoicesKernel({ 'plugins.address-pool.targetFree': 12 });
  const operatorId = (await gw.kernel.cradle.tenancyOperators.create('list', CLI_ACTOR)).id;
  p = await projectWithPools(gw, operatorId, ['ada', 'btc']);
  other = await projectWithPools(gw, operatorId, ['ada']);
  const amounts = ['1.5', '2', '1.5', '3', '0.25', '7', '1.50', '9', '10', '11'];
  for (const [i, amount] of amounts.entries()) {
    const res = await signedFetch(gw.url, '/api/v1/invoices', {
      ...p,
      method: 'POST',
      body: { external_id: `list-${i}`, amount_crypto: amount, coin: i % 3 === 0 ? 'btc' : 'ada' },
    });
    if (res.status !== 201) throw new Error(JSON.stringify(res.body));
    created.push(res.body);
  }
  await signedFetch(gw.url, '/api/v1/invoices', { ...other, method: 'POST', body: { external_id: 'list-0', amount_crypto: '1.5', coin: 'ada' } });
});
test.after.always(async () => {
  await gw?.close();
});

const list = (query: string, project = p) => signedFetch(gw.url, `/api/v1/invoices${query}`, project);
const ids = (body: { items: { id: string }[] }) => body.items.map((i) => i.id);
const newestFirst = () => [...created].reverse().map((i) => i.id);

test.serial("lists the project's invoices newest first in the pagination envelope", async (t) => {
  const res = await list('');
  t.is(res.status, 200);
  t.true(Value.Check(InvoiceListSchema, res.body));
  t.deepEqual(ids(res.body), newestFirst());
  t.false('next_cursor' in res.body);
});

test.serial('every filter', async (t) => {
  t.deepEqual(ids((await list('?external_id=list-3')).body), [created[3].id]);
  t.deepEqual(ids((await list(`?address=${created[4].address}`)).body), [created[4].id]);
  t.deepEqual(ids((await list('?amount=1.50')).body).sort(), [created[0].id, created[2].id, created[6].id].sort());
  t.deepEqual(ids((await list('?amount=1.5&external_id=list-2')).body), [created[2].id]);

  const { db } = gw.kernel.cradle;
  await db('invoices_invoices').where({ id: created[5].id }).update({ status: 'detected' });
  await db('invoices_transactions').insert({
    id: ulid(),
    invoice_id: created[5].id,
    project_id: p.projectId,
    chain: 'ada',
    coin: 'ada',
    tx_hash: 'ab'.repeat(32),
    output_index: 1,
    to_address: created[5].address,
    amount_units: '7000000',
    confirmations: 0,
    status: 'pending',
    detected_at: new Date(),
  });
  t.deepEqual(ids((await list('?status=detected')).body), [created[5].id]);
  t.deepEqual(ids((await list(`?tx_hash=${'ab'.repeat(32)}`)).body), [created[5].id]);
  t.deepEqual(ids((await list(`?tx_hash=${'AB'.repeat(32)}`)).body), [created[5].id]);
  t.deepEqual(ids((await list(`?tx_hash=${'cd'.repeat(32)}`)).body), []);
  const withTx = (await signedFetch(gw.url, `/api/v1/invoices/${created[5].id}`, p)).body;
  t.like(withTx.transactions[0], {
    tx_hash: 'ab'.repeat(32),
    output_index: 1,
    amount_crypto: '7',
    amount_units: '7000000',
    confirmations: 0,
    status: 'pending',
    block_height: null,
  });
  t.is(withTx.confirmations, 0);
  t.deepEqual(ids((await list(`?tx_hash=${'ab'.repeat(32)}`, other)).body), [], 'tx_hash never crosses projects');

  // Dates: spread the creation times, then cut.
  for (const [i, invoice] of created.entries()) {
    await db('invoices_invoices')
      .where({ id: invoice.id })
      .update({ created_at: new Date(Date.UTC(2026, 0, 1 + i, 12)) });
  }
  t.deepEqual(ids((await list('?date_from=2026-01-08')).body), newestFirst().slice(0, 3));
  t.deepEqual(ids((await list('?date_to=2026-01-02')).body), newestFirst().slice(-2), 'a bare date_to covers that whole day');
  t.deepEqual(ids((await list('?date_from=2026-01-03T12:00:00Z&date_to=2026-01-04T12:00:00%2B00:00')).body), [created[3].id, created[2].id]);
  t.deepEqual(ids((await list('?date_from=2026-01-03T11:00:00-02:00')).body), newestFirst().slice(0, 7));
  t.deepEqual(ids((await list('?date_from=2026-01-03T12:00:00Z&status=pending&limit=2')).body), [created[9].id, created[8].id]);
});

test.serial('cursor pagination is stable while invoices are inserted', async (t) => {
  const seen: string[] = [];
  let cursor: string | undefined;
  let page = 0;
  do {
    const res = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(res.status, 200);
    t.true(Value.Check(InvoiceListSchema, res.body));
    seen.push(...ids(res.body));
    cursor = res.body.next_cursor;
    if (page === 0) {
      // New invoices arrive while the client pages; they sort before the cursor and never shift it.
      for (const n of [1, 2]) {
        await signedFetch(gw.url, '/api/v1/invoices', {
          ...p,
          method: 'POST',
          body: { external_id: `late-${n}-${Math.random()}`, amount_crypto: '1', coin: 'ada' },
        });
      }
    }
    page += 1;
  } while (cursor);
  t.deepEqual(seen, newestFirst());
  t.is(page, 4);
  const exact = await list('?limit=5&external_id=list-1');
  t.false('next_cursor' in exact.body);
});

test.serial('bad queries are 400 validation_error naming the field', async (t) => {
  const cases: [string, string][] = [
    ['?limit=0', 'query.limit'],
    ['?limit=201', 'query.limit'],
    ['?limit=abc', 'query.limit'],
    ['?limit=1.5', 'query.limit'],
    ['?cursor=nope', 'query.cursor'],
    ['?cursor=01arz3ndektsv4rrffq69g5fav', 'query.cursor'],
    ['?status=settled', 'query.status'],
    ['?amount=1e5', 'query.amount'],
    ['?amount=-1', 'query.amount'],
    ['?date_from=yesterday', 'query.date_from'],
    ['?date_from=2026-02-31', 'query.date_from'],
    ['?date_to=2026-02-31T10:00:00Z', 'query.date_to'],
    ['?date_to=2026-13-01T00:00:00Z', 'query.date_to'],
    ['?date_from=2026-02-02&date_to=2026-02-01', 'query.date_from'],
    ['?colour=red', 'query.colour'],
    ['?external_id=a%00b', 'query.external_id'],
    ['?tx_hash=%00', 'query.tx_hash'],
  ];
  for (const [query, field] of cases) {
    const res = await list(query);
    t.is(res.status, 400, query);
    t.is(res.body.error_code, 'validation_error', query);
    t.is(res.body.details.field, field, query);
  }
  t.is((await list('?limit=200')).status, 200);
});

import test from 'ava';
import { connect } from 'node:net';
import { asFunction } from 'awilix';
import type { Knex } from 'knex';
import { definePlugin, defineRoute, service, sql, sqlQuery, withDeps } from '@gw/kernel';
import { createTestDatabase, startTestKernel } from '@gw/kernel/testing';
import { roomInRateWindow, waitFor } from '../src/testing/wait-for.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly outboxProbeCounter: { value: number };
  }
}

/** A plugin with a table, a queue whose handler records what it saw, and a route. */
const outboxProbe = definePlugin({
  id: 'outbox-probe',
  migrations: [
    {
      name: '0001',
      up: async (knex) => {
        await knex.schema.createTable('outbox_probe_things', (t) => {
          t.text('id').primary();
        });
        await knex.schema.createTable('outbox_probe_seen', (t) => {
          t.text('id').primary();
        });
      },
      down: async (knex) => {
        await knex.schema.dropTable('outbox_probe_seen');
        await knex.schema.dropTable('outbox_probe_things');
      },
    },
  ],
  register: () => ({ outboxProbeCounter: service([], () => ({ value: 0 })) }),
  jobs: withDeps(['db'], (deps) => [
    {
      name: 'outbox-probe.announce',
      work: { pollingIntervalSeconds: 0.5, batchSize: 10 },
      handler: async (jobs) => {
        for (const job of jobs)
          await deps
            .db('outbox_probe_seen')
            .insert({ id: (job.data as { id: string }).id })
            .onConflict('id')
            .ignore();
      },
    },
  ]),
  routes: withDeps(['rateLimiter'], (deps) => [
    defineRoute({
      method: 'GET',
      path: '/probe/limited',
      summary: 'Two per minute across all instances.',
      auth: 'none',
      handler: async () => {
        await deps.rateLimiter.consume({ key: 'probe:shared', limit: 2, windowSeconds: 60 });
        return { body: { ok: true } };
      },
    }),
  ]),
});

test('a job sent inside a transaction exists only if the transaction commits (the outbox rule)', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe] });
  t.teardown(() => gw.close());
  const { db, jobs } = gw.kernel.cradle;
  await t.throwsAsync(
    db.transaction(async (trx) => {
      await trx('outbox_probe_things').insert({ id: 'rolled-back' });
      await jobs.sendInTransaction(trx, 'outbox-probe.announce', { id: 'rolled-back' });
      throw new Error('abort');
    }),
    { message: 'abort' },
  );
  await db.transaction(async (trx) => {
    await trx('outbox_probe_things').insert({ id: 'committed' });
    await jobs.sendInTransaction(trx, 'outbox-probe.announce', { id: 'committed' });
  });
  await waitFor(async () => (await db('outbox_probe_seen').where({ id: 'committed' }).first()) as unknown, 20_000, 'the committed job');
  // The rolled-back job was never created: pg-boss has exactly one job on the queue.
  const rows = await db.raw(`select data->>'id' as id from pgboss.job where name = 'outbox-probe.announce'`);
  t.deepEqual(
    rows.rows.map((r: { id: string }) => r.id),
    ['committed'],
  );
  t.falsy(await db('outbox_probe_things').where({ id: 'rolled-back' }).first());
});

test('rate limits hold across two gateway instances sharing one database', async (t) => {
  const database = await createTestDatabase();
  const one = await startTestKernel({ plugins: [outboxProbe], database, role: 'gateway' });
  const two = await startTestKernel({ plugins: [outboxProbe], database, role: 'gateway' });
  t.teardown(async () => {
    await one.close();
    await two.close();
    await database.drop();
  });
  t.is((await fetch(`${one.url}/probe/limited`)).status, 200);
  t.is((await fetch(`${two.url}/probe/limited`)).status, 200);
  const third = await fetch(`${one.url}/probe/limited`);
  t.is(third.status, 429);
  t.truthy(third.headers.get('retry-after'));
  t.is(((await third.json()) as { error_code: string }).error_code, 'rate_limit_exceeded');
});

test('stop closes the server: a stopped gateway refuses connections', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe], role: 'gateway' });
  t.is((await fetch(`${gw.url}/readyz`)).status, 200);
  await gw.close();
  await t.throwsAsync(fetch(`${gw.url}/healthz`));
});

test('a plugin that fails to start stops start-up', async (t) => {
  const broken = definePlugin({
    id: 'broken',
    start: withDeps([], async () => {
      throw new Error('cannot reach provider');
    }),
  });
  await t.throwsAsync(startTestKernel({ plugins: [broken] }), { message: /plugin "broken" failed to start: cannot reach provider/ });
});

test('service names must carry the plugin prefix', async (t) => {
  const sloppy = definePlugin({ id: 'sloppy', register: () => ({ helper: service([], () => 1) }) });
  await t.throwsAsync(startTestKernel({ plugins: [sloppy] }), { message: /service names must start with "sloppy"/ });
});

test('a service must declare what it reads: a resolver wired by hand (it would get the whole container) stops start-up', async (t) => {
  const byHand = definePlugin({ id: 'by-hand', register: () => ({ byHandHelper: asFunction(() => 1).singleton() }) });
  await t.throwsAsync(startTestKernel({ plugins: [byHand] }), {
    message: 'plugin "by-hand" registers "byHandHelper" without service() or serviceValue(): a service declares the services it reads (ADR 0009)',
  });
});

/** The statements on the rate-limit counters that `db` sends while `fn` runs (knex's query event). */
async function counterStatementsDuring<T>(db: Knex, fn: () => Promise<T>): Promise<{ result: T; statements: number }> {
  let statements = 0;
  const capture = (query: { sql: string }) => {
    if (query.sql.includes('kernel_rate_limit_counters')) statements++;
  };
  db.on('query', capture);
  try {
    return { result: await fn(), statements };
  } finally {
    db.off('query', capture);
  }
}

// Statement counts: mutation checked, hitEach as one hitMany per entry and hitMany as one hit per
// hit (loops of statements, same answers) fail both tests below.
test('hitMany counts a batch in one statement and admits exactly the hits within the limit', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe], role: 'cli' });
  t.teardown(() => gw.close());
  const rule = { key: 'probe:batch', limit: 5, windowSeconds: 60 };
  t.true((await gw.kernel.cradle.rateLimiter.hit(rule)).allowed);
  const { result: batch, statements } = await counterStatementsDuring(gw.kernel.cradle.db, () => gw.kernel.cradle.rateLimiter.hitMany(rule, 6));
  t.is(statements, 1);
  t.deepEqual(
    batch.map((r) => [r.count, r.allowed, r.remaining]),
    [
      [2, true, 3],
      [3, true, 2],
      [4, true, 1],
      [5, true, 0],
      [6, false, 0],
      [7, false, 0],
    ],
  );
  t.false((await gw.kernel.cradle.rateLimiter.hit(rule)).allowed);
  await gw.kernel.cradle.audit.recordMany([
    { actor: 'system', channel: 'system', action: 'probe.one' },
    { actor: 'system', channel: 'system', action: 'probe.two', details: { n: 2 } },
  ]);
  const rows = await gw.kernel.cradle.db('kernel_audit_log').whereIn('action', ['probe.one', 'probe.two']).orderBy('id');
  t.deepEqual(
    rows.map((r) => r.action),
    ['probe.one', 'probe.two'],
  );
});

test.serial('rate-limit windows are cut on the database clock: a process whose clock is two hours off counts into the same window', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe], role: 'cli' });
  t.teardown(() => gw.close());
  const { rateLimiter, db } = gw.kernel.cradle;
  const rule = { key: 'probe:clock', limit: 3, windowSeconds: 3600 };
  await roomInRateWindow(20, 3600);
  t.is((await rateLimiter.hit(rule)).count, 1);
  const realNow = Date.now;
  Date.now = () => realNow() + 2 * 3600 * 1000;
  try {
    const skewed = await rateLimiter.hitMany(rule, 3);
    t.deepEqual(
      skewed.map((r) => [r.count, r.allowed]),
      [
        [2, true],
        [3, true],
        [4, false],
      ],
    );
    t.true(
      skewed.every((r) => r.retryAfter >= 1 && r.retryAfter <= 3600),
      'retry_after within the window of the database clock',
    );
  } finally {
    Date.now = realNow;
  }
  t.deepEqual(await db('kernel_rate_limit_counters').where({ key: 'probe:clock' }).select('count'), [{ count: 4 }]);
});

test('hitEach counts several keys in one statement; concurrent calls over the same keys in any order never deadlock', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe], role: 'cli' });
  t.teardown(() => gw.close());
  const { rateLimiter } = gw.kernel.cradle;
  const rule = (key: string, limit = 1000) => ({ key, limit, windowSeconds: 60 });
  await roomInRateWindow(20);
  const { result: first, statements } = await counterStatementsDuring(gw.kernel.cradle.db, () =>
    rateLimiter.hitEach([
      { rule: rule('probe:each:b', 2), hits: 3 },
      { rule: rule('probe:each:a'), hits: 1 },
    ]),
  );
  t.is(statements, 1);
  t.deepEqual(
    first.map((hits) => hits.map((h) => [h.count, h.allowed])),
    [
      [
        [1, true],
        [2, true],
        [3, false],
      ],
      [[1, true]],
    ],
  );
  // Each statement locks the counter rows of several keys; in key order they queue, never deadlock.
  const keys = ['probe:each:a', 'probe:each:b', 'probe:each:c', 'probe:each:d'];
  await Promise.all(
    Array.from({ length: 40 }, (_, n) => rateLimiter.hitEach((n % 2 ? [...keys].reverse() : keys).map((key) => ({ rule: rule(key), hits: 1 })))),
  );
  const counts = await gw.kernel.cradle.db('kernel_rate_limit_counters').whereIn('key', keys).orderBy('key').select('key', 'count');
  t.deepEqual(
    counts.map((r) => [r.key, r.count]),
    [
      ['probe:each:a', 41],
      ['probe:each:b', 43],
      ['probe:each:c', 40],
      ['probe:each:d', 40],
    ],
  );
  await t.throwsAsync(
    rateLimiter.hitEach([
      { rule: rule('probe:x'), hits: 1 },
      { rule: rule('probe:x'), hits: 1 },
    ]),
    { message: /distinct/ },
  );
});

test('recordManySql writes audit rows inside the caller statement, only for the targets it names', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe], role: 'cli' });
  t.teardown(() => gw.close());
  const { audit, db } = gw.kernel.cradle;
  await sqlQuery(
    db,
    sql`with written as (${audit.recordManySql(
      [
        { actor: 'system', channel: 'system', action: 'probe.sql', target: 'thing:1', details: { n: 1 } },
        { actor: 'system', channel: 'system', action: 'probe.sql', target: 'thing:2' },
      ],
      { onlyTargetsIn: sql`select 'thing:' || ${'2'}::text` },
    )}) select 1`,
  );
  const rows = await db('kernel_audit_log').where({ action: 'probe.sql' });
  t.deepEqual(
    rows.map((r) => [r.target, r.details]),
    [['thing:2', null]],
  );
});

test('a body nested deeper than the limit is 400 validation_error; an unknown method is 405, never a bare 501', async (t) => {
  const gw = await startTestKernel({ plugins: [outboxProbe], role: 'gateway' });
  t.teardown(() => gw.close());
  const deep = '['.repeat(50_000) + ']'.repeat(50_000);
  const refused = await fetch(`${gw.url}/probe/limited`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
  t.is(refused.status, 400);
  t.like(await refused.json(), { error_code: 'validation_error', details: { field: 'body' } });
  const shallow = await fetch(`${gw.url}/probe/limited`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[[[1]]]' });
  t.is(shallow.status, 405, 'a shallow body passes the reader and meets the router');
  const unknown = await fetch(`${gw.url}/probe/limited`, { method: 'PROPFIND' });
  t.is(unknown.status, 405);
  t.is(((await unknown.json()) as { error_code: string }).error_code, 'method_not_allowed');
});

test('keep-alive and header timeouts come from the configuration; the defaults outlast a 60 s load-balancer idle timeout', async (t) => {
  const defaults = await startTestKernel({ plugins: [outboxProbe], role: 'gateway' });
  t.teardown(() => defaults.close());
  t.is(defaults.kernel.server!.keepAliveTimeout, 75_000);
  t.is(defaults.kernel.server!.headersTimeout, 80_000);
  t.true(defaults.kernel.server!.keepAliveTimeout > 60_000);

  const short = await startTestKernel({ plugins: [outboxProbe], role: 'gateway', config: { 'http.keepAliveTimeoutMs': 1000, 'http.headersTimeoutMs': 2000 } });
  t.teardown(() => short.close());
  t.is(short.kernel.server!.keepAliveTimeout, 1000);
  t.is(short.kernel.server!.headersTimeout, 2000);
  // The configured value is what the server acts on: an idle connection is closed by the server.
  const { port } = new URL(short.url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n');
  await closed;
  t.regex(received, /^HTTP\/1\.1 200/);
  t.regex(received, /keep-alive: timeout=1/i);
});

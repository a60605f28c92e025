import test, { type ExecutionContext } from 'ava';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { pino } from 'pino';
import { createNotifications, type Notifications } from '@gw/kernel';
import { createTestDatabase, startTestKernel, type TestDatabase } from '@gw/kernel/testing';
import { waitFor } from '../src/testing/wait-for.js';

const logger = pino({ level: 'silent' });

/** A fresh database, a knex on it and a notifications hub listening to it; all closed after the test. */
async function notificationsOnFreshDatabase(t: ExecutionContext): Promise<{ database: TestDatabase; db: Knex; hub: Notifications }> {
  const database = await createTestDatabase();
  const db = knexFactory({ client: 'pg', connection: database.url });
  const hub = createNotifications({ url: database.url, logger });
  t.teardown(async () => {
    await hub.close();
    await db.destroy();
    await database.drop();
  });
  return { database, db, hub };
}

test('a notification sent in a transaction arrives when it commits and never when it rolls back', async (t) => {
  const { db, hub } = await notificationsOnFreshDatabase(t);
  const seen: string[] = [];
  const stop = await hub.subscribe('probe.status', { onNotification: (payload) => seen.push(payload) });
  t.is(hub.subscriberCount('probe.status'), 1);

  // Only the rollback's own error is expected: a failing notify must fail the test, not pass
  // silently as a rollback (it did when every error was swallowed here).
  await t.throwsAsync(
    db.transaction(async (trx) => {
      await hub.notify(trx, 'probe.status', 'rolled-back');
      throw new Error('roll back');
    }),
    { message: 'roll back' },
  );
  await db.transaction(async (trx) => {
    await hub.notify(trx, 'probe.status', 'committed');
    // Not before the commit: the listener has seen nothing yet.
    t.deepEqual(seen, []);
  });
  await waitFor(async () => seen.length === 1);
  t.deepEqual(seen, ['committed']);

  // Other channels are not delivered; after unsubscribing nothing more arrives on this one.
  await hub.notify(db, 'probe.other', 'elsewhere');
  stop();
  t.is(hub.subscriberCount('probe.status'), 0);
  await hub.notify(db, 'probe.status', 'after-stop');
  const sentinel: string[] = [];
  await hub.subscribe('probe.sentinel', { onNotification: (p) => sentinel.push(p) });
  await hub.notify(db, 'probe.sentinel', 'done');
  await waitFor(async () => sentinel.length === 1);
  t.deepEqual(seen, ['committed']);
});

test('a lost listening connection is re-opened by itself, subscribers are told of the gap and keep receiving', async (t) => {
  const { database, db, hub } = await notificationsOnFreshDatabase(t);
  const seen: string[] = [];
  let gaps = 0;
  await hub.subscribe('probe.status', { onNotification: (p) => seen.push(p), onGap: () => gaps++ });
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  const killed = await admin.query(
    `select pg_terminate_backend(pid) as ok from pg_stat_activity where application_name = 'gateway-listen' and datname = current_database()`,
  );
  await admin.end();
  t.is(killed.rowCount, 1);
  await waitFor(async () => gaps === 1, 10_000, 'the reconnection');
  await hub.notify(db, 'probe.status', 'after-reconnect');
  await waitFor(async () => seen.includes('after-reconnect'));
  t.is(gaps, 1);
});

test('bad channel names and oversized payloads are refused before reaching PostgreSQL', async (t) => {
  const hub = createNotifications({ url: 'postgres://unused@127.0.0.1:1/none', logger });
  const db = knexFactory({ client: 'pg', connection: 'postgres://unused@127.0.0.1:1/none' });
  t.teardown(async () => {
    await hub.close();
    await db.destroy();
  });
  await t.throwsAsync(hub.subscribe('Bad"; drop', { onNotification: () => undefined }), { message: /not \[a-z\]/ });
  await t.throwsAsync(hub.notify(db, 'ok.channel', 'x'.repeat(8000)), { message: /exceeds/ });
});

test('database.listenUrl, when set, is where the LISTEN connection goes (a transaction-mode PgBouncer cannot hold LISTEN)', async (t) => {
  const listenDatabase = await createTestDatabase();
  const gw = await startTestKernel({ plugins: [], role: 'gateway', config: { 'database.listenUrl': listenDatabase.url } });
  t.teardown(async () => {
    await gw.close();
    await listenDatabase.drop();
  });
  const stop = await gw.kernel.cradle.notifications.subscribe('probe.listen_url', { onNotification: () => undefined });
  t.teardown(stop);
  const rows = (
    await gw.kernel.cradle.db.raw("select datname from pg_stat_activity where application_name = 'gateway-listen' and datname in (?, ?)", [
      listenDatabase.name,
      gw.database.name,
    ])
  ).rows as { datname: string }[];
  t.deepEqual(
    rows.map((r) => r.datname),
    [listenDatabase.name],
  );
});

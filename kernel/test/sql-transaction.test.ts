import test from 'ava';
import knexFactory, { type Knex } from 'knex';
import { sql, sqlCommitWithoutFlushWait, sqlQuery, sqlTransaction } from '@gw/kernel';
import { createTestDatabase } from '@gw/kernel/testing';

let db: Knex;
let drop: () => Promise<void>;
test.before(async () => {
  const database = await createTestDatabase();
  drop = database.drop;
  db = knexFactory({ client: 'pg', connection: database.url, pool: { min: 1, max: 1 } });
  await db.raw('create table probe_tx (n int primary key)');
});
test.after.always(async () => {
  await db?.destroy();
  await drop?.();
});

/** The texts a pooled connection is handed while `fn` runs, and whether each had been answered when the next was sent. */
async function sentDuring<T>(fn: () => Promise<T>): Promise<{ result: T | unknown; sent: { text: string; answeredBefore: string[] }[] }> {
  const connection = (await db.client.acquireConnection()) as { query: (config: { text: string }) => Promise<unknown> };
  await db.client.releaseConnection(connection);
  const original = connection.query;
  const sent: { text: string; answeredBefore: string[] }[] = [];
  const answered: string[] = [];
  connection.query = function (this: unknown, config: { text: string }) {
    const text = config.text.trim().split(/\s+/).slice(0, 3).join(' ');
    sent.push({ text, answeredBefore: [...answered] });
    const pending = original.call(this, config);
    void pending.then(
      () => answered.push(text),
      () => answered.push(text),
    );
    return pending;
  } as typeof connection.query;
  try {
    return { result: await fn().catch((error: unknown) => error), sent };
  } finally {
    connection.query = original;
  }
}

test.serial('a transaction pipelines: begin travels with the first statement, the last statement with its commit (ADR 0014)', async (t) => {
  const { result, sent } = await sentDuring(() =>
    sqlTransaction(db, async (tx) => {
      const [first] = await tx.query<{ n: number }>(sql`insert into probe_tx (n) select 1 from pg_sleep(0.05) returning n`);
      return tx.queryAndCommit<{ n: number }>(sql`insert into probe_tx (n) select ${first!.n + 1}::int from pg_sleep(0.05) returning n`);
    }),
  );
  t.deepEqual(result, [{ n: 2 }]);
  t.deepEqual(
    sent.map((s) => s.text),
    ['begin', 'insert into probe_tx', 'insert into probe_tx', 'commit'],
  );
  t.deepEqual(sent[1]!.answeredBefore, [], 'the first statement was sent before begin was answered');
  t.deepEqual(sent[3]!.answeredBefore, ['begin', 'insert into probe_tx'], 'commit sent before the last statement was answered');
  t.deepEqual(
    (await sqlQuery<{ n: number }>(db, sql`select n from probe_tx order by n`)).map((r) => r.n),
    [1, 2],
  );
  // The connection is back to one statement at a time for whoever gets it next.
  const connection = (await db.client.acquireConnection()) as { pipeline?: boolean };
  t.false(connection.pipeline);
  await db.client.releaseConnection(connection);
});

test.serial('a failing last statement sent with its commit rolls the whole transaction back and reports its own error', async (t) => {
  await sqlQuery(db, sql`insert into probe_tx (n) values (9)`);
  const error = await t.throwsAsync(
    sqlTransaction(db, async (tx) => {
      await tx.query(sql`insert into probe_tx (n) values (10)`);
      return tx.queryAndCommit(sql`insert into probe_tx (n) values (9)`);
    }),
  );
  t.regex(error!.message, /duplicate key/);
  t.deepEqual(await sqlQuery(db, sql`select n from probe_tx where n = 10`), [], 'the first statement rolled back');
  // A failure raised on purpose by the last statement (statement 2 of invoice creation checks its counts that way).
  const raised = await t.throwsAsync(
    sqlTransaction(db, async (tx) => {
      await tx.query(sql`insert into probe_tx (n) values (11)`);
      return tx.queryAndCommit(sql`select case when count(*) > 0 then ('took ' || count(*) || ' rows')::int end from probe_tx where n = 11`);
    }),
  );
  t.regex(raised!.message, /took 1 rows/);
  t.deepEqual(await sqlQuery(db, sql`select n from probe_tx where n = 11`), []);
  // The connection works afterwards, in a transaction and alone.
  await sqlTransaction(db, (tx) => tx.queryAndCommit(sql`insert into probe_tx (n) values (12)`));
  t.deepEqual(await sqlQuery(db, sql`select n from probe_tx where n = 12`), [{ n: 12 }]);
});

test.serial('a throw in the work rolls back statements already sent', async (t) => {
  await t.throwsAsync(
    sqlTransaction(db, async (tx) => {
      await tx.query(sql`insert into probe_tx (n) values (20)`);
      throw new Error('changed my mind');
    }),
    { message: 'changed my mind' },
  );
  t.deepEqual(await sqlQuery(db, sql`select n from probe_tx where n = 20`), []);
  await t.throwsAsync(
    sqlTransaction(db, async (tx) => {
      await tx.queryAndCommit(sql`select 1`);
      await tx.query(sql`select 2`);
    }),
    { message: /after queryAndCommit/ },
  );
});

test.serial('a statement joining sqlCommitWithoutFlushWait commits for everyone at once, and the setting ends with its transaction', async (t) => {
  await sqlQuery(db, sql`insert into probe_tx (n) select 30 from ${sqlCommitWithoutFlushWait} as no_flush_wait`);
  t.deepEqual(await sqlQuery(db, sql`select n from probe_tx where n = 30`), [{ n: 30 }]);
  const [setting] = await sqlQuery<{ synchronous_commit: string }>(db, sql`show synchronous_commit`);
  t.not(setting!.synchronous_commit, 'off', 'the next transaction on the connection flushes as configured');
});

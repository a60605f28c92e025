import test from 'ava';
import knexFactory from 'knex';
import { sql, sqlQuery } from '@gw/kernel';
import { createTestDatabase } from '@gw/kernel/testing';

test('statements started in a transaction without awaiting run in the order they were started, and a failed one fails those after it, not the ones before', async (t) => {
  const database = await createTestDatabase();
  const db = knexFactory({ client: 'pg', connection: database.url });
  t.teardown(async () => {
    await db.destroy();
    await database.drop();
  });
  await db.raw('create table probe_order (n int primary key, at timestamptz not null default clock_timestamp())');
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.teardown(() => void process.off('warning', onWarning));

  // The first statement is the slowest: the later ones still run after it.
  await db.transaction(async (trx) => {
    const started = [
      sqlQuery(trx, sql`insert into probe_order (n) select 1 from pg_sleep(0.2)`),
      sqlQuery(trx, sql`insert into probe_order (n) values (2)`),
      sqlQuery<{ n: number }>(trx, sql`insert into probe_order (n) values (3) returning n`),
    ];
    const results = await Promise.all(started);
    t.deepEqual(results[2], [{ n: 3 }]);
  });
  const rows = await sqlQuery<{ n: number }>(db, sql`select n from probe_order order by at, n`);
  t.deepEqual(
    rows.map((r) => r.n),
    [1, 2, 3],
  );

  // A duplicate key aborts the transaction: the statement before it succeeded, the one after is refused.
  const outcomes = await db
    .transaction(async (trx) => {
      const started = [
        sqlQuery(trx, sql`insert into probe_order (n) values (4)`),
        sqlQuery(trx, sql`insert into probe_order (n) values (1)`),
        sqlQuery(trx, sql`insert into probe_order (n) values (5)`),
      ];
      return Promise.allSettled(started);
    })
    .catch((error: unknown) => error);
  t.true(Array.isArray(outcomes));
  const [first, second, third] = outcomes as PromiseSettledResult<unknown>[];
  t.is(first!.status, 'fulfilled');
  t.is(second!.status, 'rejected');
  t.regex(String((second as PromiseRejectedResult).reason), /duplicate key/);
  t.is(third!.status, 'rejected');
  t.regex(String((third as PromiseRejectedResult).reason), /current transaction is aborted/);
  // node-postgres was never handed a second query while one ran (it deprecates that).
  t.deepEqual(
    warnings.filter((w) => w.includes('already executing a query')),
    [],
  );
});

import test from 'ava';
import pg from 'pg';
import { createKnex, isDatabaseUnavailable } from '../src/index.js';
import { toAppError } from '../src/http/error-middleware.js';
import { createTestDatabase, freePort, type TestDatabase } from '../src/testing/index.js';

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

/** The error `run` rejects with. */
async function rejection(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

test('a server that refuses connections is unavailable: 503 service_unavailable with Retry-After, not 500', async (t) => {
  const url = `postgres://postgres@127.0.0.1:${await freePort()}/nowhere`;
  const knex = createKnex(url, 2);
  t.teardown(() => knex.destroy());
  const refused = await rejection(() => knex.raw('select 1'));
  t.true(isDatabaseUnavailable(refused), String(refused));
  const answered = toAppError(refused);
  t.is(answered.status, 503);
  t.is(answered.code, 'service_unavailable');
  t.is(answered.retryAfter, 1);

  const client = new pg.Client({ connectionString: url });
  t.true(isDatabaseUnavailable(await rejection(() => client.connect())));
});

test("a connection the server terminates (a restart's fast shutdown) is unavailable, on the query it cut and on a query that gets the dead connection; the pool recovers", async (t) => {
  const knex = createKnex(database.url, 1);
  t.teardown(() => knex.destroy());
  const admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  t.teardown(() => admin.end());
  const pid = (await knex.raw('select pg_backend_pid() as pid')).rows[0].pid as number;
  const cut = rejection(() => knex.raw('select pg_sleep(5)'));
  await new Promise((r) => setTimeout(r, 200));
  await admin.query('select pg_terminate_backend($1)', [pid]);
  const terminated = await cut;
  t.is((terminated as { code?: string }).code, '57P01', String(terminated));
  t.true(isDatabaseUnavailable(terminated));
  t.is(toAppError(terminated).status, 503);
  // The pool may hand out the dead connection once more (its end is noticed a moment later): that
  // query is unavailable too, and the pool replaces the connection for the next.
  for (let attempt = 1; ; attempt++) {
    try {
      t.is((await knex.raw('select 1 as one')).rows[0].one, 1);
      break;
    } catch (error) {
      t.true(isDatabaseUnavailable(error), String(error));
      t.true(attempt < 3, 'a fresh connection by the third query');
    }
  }
});

test('errors of the request or of the code stay what they were (a bad statement, a division by zero, an outbound call refused: 500)', async (t) => {
  const knex = createKnex(database.url, 1);
  t.teardown(() => knex.destroy());
  const syntax = await rejection(() => knex.raw('selec 1'));
  t.false(isDatabaseUnavailable(syntax));
  t.is(toAppError(syntax).status, 500);
  const division = await rejection(() => knex.raw('select 1/0'));
  t.false(isDatabaseUnavailable(division));
  t.is(toAppError(division).status, 500);
  t.false(isDatabaseUnavailable(new Error('something else')));
  // An outbound HTTP call that found nothing listening is not the database.
  const fetchFailed = await rejection(async () => fetch(`http://127.0.0.1:${await freePort()}/`));
  t.is(((fetchFailed as Error).cause as { code?: string }).code, 'ECONNREFUSED');
  t.false(isDatabaseUnavailable(fetchFailed));
  t.is(toAppError(fetchFailed).status, 500);
  t.false(isDatabaseUnavailable(undefined));
});

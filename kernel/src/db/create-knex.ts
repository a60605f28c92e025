import knexFactory, { type Knex } from 'knex';
import pg from 'pg';

// bigint (int8) and numeric columns come back as strings by default; keep it that way for
// numeric (money) and parse int8 counters explicitly where they are used. Dates stay Date.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => value);

/** The application's knex instance over a pg pool. */
export function createKnex(url: string, poolMax: number): Knex {
  return knexFactory({
    client: 'pg',
    connection: { connectionString: url, application_name: 'gateway' },
    pool: { min: 0, max: poolMax },
    acquireConnectionTimeout: 10_000,
  });
}

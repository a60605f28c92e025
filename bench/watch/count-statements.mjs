// Loaded into the measured worker by bench/watch/cost.ts (NODE_OPTIONS=--import): counts every
// statement the process sends to PostgreSQL (node-postgres `Client.query`, which knex and pg-boss
// both go through) and writes the running total to GW_BENCH_STATEMENTS_FILE twice a second.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(join(process.cwd(), 'kernel', 'package.json'));
const pg = require('pg');
let statements = 0;
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function countedQuery(...args) {
  statements += 1;
  return query.apply(this, args);
};
const file = process.env.GW_BENCH_STATEMENTS_FILE;
if (file) setInterval(() => writeFileSync(file, String(statements)), 500).unref();

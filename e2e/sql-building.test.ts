/**
 * Issue 19 item 5, the data-access rule of docs/architecture.md: no SQL is built as a string. Every
 * TypeScript file of kernel/, plugins/, chains/, apps/, packages/, scripts/, bench/ and e2e/ (tests
 * included) is parsed, and a template literal with substitutions, a `+` concatenation or a
 * `.join(...)` that is handed to a query method or reads as a statement fails the suite: values go
 * in as parameters (the kernel's `sql` tag, knex bindings, Objection), names through
 * `sqlIdentifier`, optional clauses and lists as `sql` fragments (`sqlJoin`).
 */
import { join, relative } from 'node:path';
import test from 'ava';
import { findStringBuiltSql, typeScriptFiles } from './sql-scan.js';

const root = new URL('..', import.meta.url).pathname;

/** Built statements allowed, by `file:line text prefix`, with the reason. Keep it short. */
const ALLOWED = new Map<string, string>([
  [
    'plugins/address-pool/test/allocation.test.ts: `explain (format json) ${lookup!.sql}`',
    'explains the statement text the code itself ran (captured from knex, with its own bindings); nothing from input',
  ],
]);

const files = ['kernel', 'plugins', 'chains', 'apps', 'packages', 'scripts', 'bench', 'e2e'].flatMap((dir) => typeScriptFiles(join(root, dir)));
const keyOf = (finding: { file: string; text: string }) => `${relative(root, finding.file)}: ${finding.text}`;

test('the scan covers the code, its tests, scripts and benches', (t) => {
  for (const file of [
    'plugins/invoices/src/services/invoice-export.ts',
    'kernel/src/db/notifications.ts',
    'scripts/test.ts',
    'bench/bench-database.ts',
    'e2e/log-secrets.test.ts',
  ]) {
    t.true(files.includes(join(root, file)), file);
  }
  t.true(files.length > 300, `${files.length} files`);
});

test('the detector tells a built statement from a parameterised one', (t) => {
  const found = (code: string) => findStringBuiltSql('snippet.ts', code).length;
  // Built: a template with substitutions or a concatenation given to a query method, or reading as a statement.
  t.is(found('db.raw(`select * from t where id = ${id}`);'), 1);
  t.is(found("db.raw('select * from t where id = ' + id);"), 1);
  t.is(found('q.whereRaw(`state = ${state}`);'), 1);
  t.is(found('client.query({ text: `listen ${channel}`, values: [] });'), 1);
  t.is(found('client.query(`create database ${name}`);'), 1);
  t.is(found("db.raw(parts.join(' union all '));"), 1);
  t.is(found('const q = `insert into t (a) values ${rows.join(", ")}`; await db.raw(q);'), 1);
  t.is(found("const q = 'delete from ' + table + ' where id = ?';"), 1);
  t.is(found('const q = `select id, name from ${schema}.t`;'), 1);
  // Not built: the sql tag, bindings, literals, and strings that are not statements.
  t.is(found('sqlQuery(db, sql`select * from t where id = ${id} ${cond ? sql`and x` : sql``}`);'), 0);
  t.is(found("db.raw('select * from t where id = ?', [id]);"), 0);
  t.is(found("db.raw('analyze ??', [table]);"), 0);
  t.is(found('db.raw(`select 1`);'), 0);
  t.is(found('logger.info(`select a coin for ${invoice}`);'), 0);
  t.is(found('const file = `listen-${projectId}.cursor`;'), 0);
  t.is(found('throw new Error(`update failed for ${id}`);'), 0);
  t.is(found('Model.query(trx).where({ id }).first();'), 0);
});

test('no SQL is built as a string outside the short allowlist', (t) => {
  const findings = files.flatMap((file) => findStringBuiltSql(file));
  const unexpected = findings.filter((f) => ![...ALLOWED.keys()].some((key) => keyOf(f).startsWith(key)));
  t.deepEqual(
    unexpected.map((f) => `${relative(root, f.file)}:${f.line}: ${f.text}`),
    [],
    'put values in as parameters (sql tag, knex bindings) and names through sqlIdentifier; see docs/architecture.md "Data access"',
  );
  for (const key of ALLOWED.keys())
    t.true(
      findings.some((f) => keyOf(f).startsWith(key)),
      `allowlist entry still needed: ${key}`,
    );
});

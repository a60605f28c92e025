import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * A piece of SQL and its parameters, built with the {@link sql} tag. Interpolated values become
 * bind parameters (never text); an interpolated `Sql` is inlined with its own parameters, so a
 * plugin can hand another one a part of a statement about its own tables (a relation, a CTE) and
 * the caller runs both in one round trip. Write whole arrays as one parameter
 * (`unnest(${ids}::text[])`) so the text stays the same whatever the batch size: statements then
 * run as named prepared statements (parsed and planned once per connection).
 */
export class Sql {
  /** @internal */
  constructor(
    readonly strings: readonly string[],
    readonly values: readonly unknown[],
  ) {}

  /** The statement as pg takes it: `$n` placeholders and the values in order. */
  toQuery(): { text: string; values: unknown[] } {
    const values: unknown[] = [];
    return { text: this.render(values), values };
  }

  private render(values: unknown[]): string {
    let text = this.strings[0]!;
    for (let i = 0; i < this.values.length; i++) {
      const value = this.values[i];
      if (value instanceof Sql) text += value.render(values);
      else {
        values.push(value);
        text += `$${values.length}`;
      }
      text += this.strings[i + 1]!;
    }
    return text;
  }
}

/**
 * A part of a statement that is a relation with known columns: what a plugin lends another
 * plugin's statement about its own tables (ADR 0003). `Row` types the columns for the borrower;
 * `columns` names them so the lending plugin's own tests can check the part against its tables
 * (a renamed column then fails there, not in the borrower at run time, ADR 0009).
 */
export class SqlRelation<Row extends Record<string, unknown>> extends Sql {
  /** @internal */
  constructor(
    readonly columns: readonly (keyof Row & string)[],
    part: Sql,
  ) {
    super(part.strings, part.values);
  }
}

/** Declares `part` a relation of the `columns` of `Row`, for a plugin's contract. */
export function sqlRelation<Row extends Record<string, unknown>>(columns: readonly (keyof Row & string)[], part: Sql): SqlRelation<Row> {
  return new SqlRelation<Row>(columns, part);
}

/** Tagged template: `sql\`select * from t where id = any(${ids}::text[])\``. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return new Sql(strings, values);
}

/**
 * A name (table, column, schema, database, role, LISTEN channel) for the {@link sql} tag, quoted
 * as PostgreSQL quotes identifiers: `sql\`analyze ${sqlIdentifier('address_pool_addresses')}\``,
 * `sqlIdentifier('pgboss', 'job')` for `"pgboss"."job"`. For the statements and positions that take
 * no bind parameter; values always go in as parameters. A statement without values runs on a
 * node-postgres client as `client.query(statement.toQuery())` (the simple protocol). Throws for an empty name, one with a NUL
 * character, or one longer than PostgreSQL's 63 bytes (it would be truncated silently).
 */
export function sqlIdentifier(...parts: [string, ...string[]]): Sql {
  const quoted = parts.map((part) => {
    if (part.length === 0 || part.includes('\0') || Buffer.byteLength(part) > 63) {
      throw new Error(`not a PostgreSQL identifier: ${JSON.stringify(part)}`);
    }
    return `"${part.replace(/"/g, '""')}"`;
  });
  return new Sql([quoted.join('.')], []);
}

/**
 * Statement pieces joined by `separator` into one, each keeping its parameters:
 * `sqlJoin(tables.map((t) => sql\`select count(*) from ${sqlIdentifier(t)}\`), sql\` union all \`)`.
 * For a list whose length is not fixed; a list of values is one array parameter instead.
 */
export function sqlJoin(parts: readonly Sql[], separator: Sql = sql`, `): Sql {
  const values = parts.flatMap((part, i) => (i === 0 ? [part] : [separator, part]));
  return new Sql(new Array<string>(values.length + 1).fill(''), values);
}

/**
 * Rows as one JSON parameter, for set-based writes of many rows:
 * `select r.id, r.body from ${jsonRecords(rows)} as r(id text, body text, at timestamptz)`.
 * The statement text stays the same whatever the batch size. Cheaper than one `text[]` parameter
 * per column once the values are long or many: node-postgres builds an array literal by escaping
 * every element in JavaScript, while `JSON.stringify` is native and PostgreSQL parses JSON fast
 * (5,000 webhook bodies of 2 KB: about 0.3 s against 0.7-1.0 s as a `text[]`). Values must be
 * JSON: bigints and numerics as strings, dates as ISO strings; a missing key is SQL null.
 */
export function jsonRecords(rows: readonly object[]): Sql {
  return sql`json_to_recordset(${JSON.stringify(rows)}::json)`;
}

/**
 * Long texts of many rows (webhook bodies) as one binary parameter, for {@link jsonRecords} rows
 * that carry each text's place in it instead of the text: `texts[i]` is
 * `${packed.text(sql\`r.at\`, sql\`r.bytes\`)}` for a row with `at: packed.at[i], bytes: packed.bytes[i]`.
 * In JSON every quote of a text that is itself JSON is escaped by `JSON.stringify` and unescaped
 * again by PostgreSQL's parser; as raw UTF-8 bytes neither happens (5,000 bodies of 1.8 KB: about
 * 0.1 s less of PostgreSQL's CPU and 20 ms less of this process's). The texts come back byte for byte.
 */
export function packedTexts(texts: readonly string[]): { readonly at: number[]; readonly bytes: number[]; text(at: Sql, bytes: Sql): Sql } {
  const at: number[] = [];
  const bytes: number[] = [];
  let offset = 0;
  for (const text of texts) {
    const length = Buffer.byteLength(text);
    at.push(offset);
    bytes.push(length);
    offset += length;
  }
  const blob = Buffer.from(texts.join(''));
  return { at, bytes, text: (from, length) => sql`convert_from(substring(${blob}::bytea from ${from} + 1 for ${length}), 'UTF8')` };
}

/**
 * A one-row relation that lets the transaction of the statement joining it commit without waiting
 * for its WAL to reach the disk (`synchronous_commit = off` for that transaction alone):
 * `insert into t select ... from x cross join ${sqlCommitWithoutFlushWait} as no_flush_wait`.
 * Others see the rows at once, as usual; a PostgreSQL crash may lose the last fraction of a second
 * of such commits (`wal_writer_delay` times three at most), never anything committed before them.
 * Only for rows whose loss is harmless (a counter, a copy of what another row records for good).
 */
export const sqlCommitWithoutFlushWait: Sql = sql`(select set_config('synchronous_commit', 'off', true))`;

/** A pg connection as knex's pool hands it out (node-postgres `Client`). */
interface PgConnection {
  query(config: { text: string; values?: unknown[]; name?: string }): Promise<{ rows: unknown[]; rowCount: number | null; command?: string }>;
  /**
   * node-postgres 8.21+: while true, a query is written at once, behind those still running, and
   * answered in order (each with its own Sync). Read by the client at every send.
   */
  pipeline?: boolean;
}

/** Runs statements on one connection: inside {@link sqlTransaction}, or alone on the pool. */
export interface SqlRunner {
  query<R = Record<string, unknown>>(statement: Sql): Promise<R[]>;
}

/** The runner of {@link sqlTransaction}. */
export interface SqlTransactionRunner extends SqlRunner {
  /**
   * The transaction's last statement, written together with its `commit` (one round trip for
   * both). Resolves once both are answered: the rows when the transaction committed; throws when
   * the statement failed (the `commit` then ended the transaction as a rollback) or the commit
   * did. Nothing may be sent on the runner after it.
   */
  queryAndCommit<R = Record<string, unknown>>(statement: Sql): Promise<R[]>;
}

// Prepared-statement names by statement text; a handful of texts exist (one per call site).
const names = new Map<string, string>();
function nameOf(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `gw_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

let querySequence = 0;

// The last statement sent on each connection: statements given to one transaction without waiting
// for each other (the caller builds its next rows meanwhile) run one after another, each sent when
// the one before has finished (node-postgres deprecates a second `query` on a busy client).
const lastOnConnection = new WeakMap<PgConnection, Promise<unknown>>();

async function run<R>(db: Knex | Knex.Transaction, connection: PgConnection, statement: Sql): Promise<R[]> {
  const { text, values } = statement.toQuery();
  // knex's `query` and `query-response` events, so statement counters and timers
  // (BENCH_COUNT_QUERIES) see these statements too.
  const query = { sql: text, bindings: values, method: 'raw', __knexQueryUid: `sql-${++querySequence}` };
  // A pipelined connection writes the statement at once behind the ones still running.
  const before = connection.pipeline === true ? undefined : lastOnConnection.get(connection);
  const send = () => {
    db.client.emit('query', query);
    return connection.query({ name: nameOf(text), text, values });
  };
  // A failed statement before this one does not hold it back (in a transaction it then fails too, as PostgreSQL decides).
  const pending = before ? before.then(send, send) : send();
  const settled = pending.then(
    () => undefined,
    () => undefined,
  );
  lastOnConnection.set(connection, settled);
  try {
    const result = await pending;
    db.client.emit('query-response', result, query);
    return result.rows as R[];
  } finally {
    if (lastOnConnection.get(connection) === settled) lastOnConnection.delete(connection);
  }
}

/**
 * One statement on a pooled connection of `db` (plain node-postgres, no query builder), as a
 * named prepared statement. Outside a transaction the statement is its own transaction; given a
 * knex transaction it runs on that transaction's connection, as part of it. Statements of one
 * transaction may be started without awaiting the previous one: they run in the order they were
 * started, each once the one before it has finished (a failed one does not stop the next, which
 * PostgreSQL then refuses as the transaction is aborted), so a caller can build its next rows
 * while PostgreSQL works. Await every one before the transaction ends, and do not start a
 * query-builder statement on the transaction while one is still running (it would not wait).
 */
export async function sqlQuery<R = Record<string, unknown>>(db: Knex | Knex.Transaction, statement: Sql): Promise<R[]> {
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    return await run<R>(db, connection, statement);
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/**
 * Runs `work` in one transaction on one pooled connection of `db`: `begin`, the statements,
 * `commit`; `rollback` when `work` throws (and the error is rethrown). The same PostgreSQL
 * transaction semantics as `db.transaction`, without the query builder on the path.
 *
 * Round trips: on a node-postgres client that pipelines (8.21+) the connection pipelines for the
 * transaction's length, so `begin` travels with the first statement, statements started without
 * awaiting each other travel together, and {@link SqlTransactionRunner.queryAndCommit} sends the
 * last statement with the `commit`. A transaction of two statements then waits on two round
 * trips instead of four (docs/adr/0014-pipelined-create-transaction.md).
 */
export async function sqlTransaction<T>(db: Knex, work: (runner: SqlTransactionRunner) => Promise<T>): Promise<T> {
  const connection = (await db.client.acquireConnection()) as PgConnection & { __knex__disposed?: unknown };
  const pipelines = typeof connection.pipeline === 'boolean';
  let commit: Promise<{ command?: string }> | undefined;
  const runner: SqlTransactionRunner = {
    query: (statement) => {
      if (commit) throw new Error('sqlTransaction: a statement after queryAndCommit');
      return run(db, connection, statement);
    },
    async queryAndCommit<R>(statement: Sql) {
      if (commit) throw new Error('sqlTransaction: queryAndCommit twice');
      const rows = run<R>(db, connection, statement);
      if (!pipelines) await rows.catch(() => undefined);
      commit = connection.query({ text: 'commit' });
      // Settled below; a failure of the statement is the one reported.
      commit.catch(() => undefined);
      const result = await rows;
      const ended = await commit;
      if (ended.command !== 'COMMIT') throw new Error(`sqlTransaction: the commit ended as ${String(ended.command)}`);
      return result;
    },
  };
  try {
    if (pipelines) connection.pipeline = true;
    const begun = connection.query({ text: 'begin' });
    if (pipelines) begun.catch(() => undefined);
    else await begun;
    const result = await work(runner);
    await begun;
    if (commit) await commit;
    else await connection.query({ text: 'commit' });
    return result;
  } catch (error) {
    // A commit already sent has ended the transaction either way (a failed statement makes it a rollback).
    const ended = commit
      ? await commit.then(
          () => true,
          () => false,
        )
      : false;
    if (!ended) {
      try {
        await connection.query({ text: 'rollback' });
      } catch (rollbackError) {
        // The connection is unusable; knex's pool must not hand it out again.
        connection.__knex__disposed = rollbackError;
      }
    }
    throw error;
  } finally {
    if (pipelines) connection.pipeline = false;
    await db.client.releaseConnection(connection);
  }
}

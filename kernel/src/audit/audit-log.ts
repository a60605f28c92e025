import type { Knex } from 'knex';
import { newId } from '../ids.js';
import { jsonRecords, sql, type Sql } from '../db/sql.js';

/** The channel a write came through. */
export type AuditChannel = 'rest' | 'mcp' | 'cli' | 'dashboard' | 'system';

export interface AuditEntry {
  /** Who: `api_key:<id>`, `pat:<id>`, `oauth:<id>`, `operator-cli`, `system`. */
  readonly actor: string;
  readonly channel: AuditChannel;
  /** What, dotted: `project.create`, `key.rotate`, `invoice.create`. */
  readonly action: string;
  readonly projectId?: string | null;
  /** The affected record, e.g. `invoice:<id>`. */
  readonly target?: string | null;
  /** Non-secret details. Never put a secret here. */
  readonly details?: Record<string, unknown> | null;
  readonly requestId?: string | null;
}

/** Append-only record of every write. Pass the write's transaction so both commit together. */
export interface AuditLog {
  record(entry: AuditEntry, trx?: Knex.Transaction): Promise<void>;
  /** Several entries in one statement (a batch of writes). */
  recordMany(entries: readonly AuditEntry[], trx?: Knex.Transaction): Promise<void>;
  /**
   * `recordMany` as a part of the caller's statement (a data-modifying CTE), so the entries commit
   * with the writes they describe in the same round trip. With `onlyTargetsIn` (a subquery of
   * targets), only the entries whose `target` it returns are written (e.g. the rows an
   * `insert ... on conflict do nothing` really inserted).
   */
  recordManySql(entries: readonly AuditEntry[], options?: { readonly onlyTargetsIn?: Sql }): Sql;
}

/** An entry as its row; `details` as given (the JSON statement) or as text (`jsonText`, the query builder). */
const row = (entry: AuditEntry, jsonText = true) => ({
  id: newId(),
  actor: entry.actor,
  channel: entry.channel,
  action: entry.action,
  project_id: entry.projectId ?? null,
  target: entry.target ?? null,
  details: entry.details ? (jsonText ? JSON.stringify(entry.details) : entry.details) : null,
  request_id: entry.requestId ?? null,
});

export function createAuditLog(db: Knex): AuditLog {
  return {
    async record(entry, trx) {
      await (trx ?? db)('kernel_audit_log').insert(row(entry));
    },
    async recordMany(entries, trx) {
      if (entries.length > 0) await (trx ?? db)('kernel_audit_log').insert(entries.map((entry) => row(entry)));
    },
    recordManySql(entries, options) {
      return sql`insert into kernel_audit_log (id, actor, channel, action, project_id, target, details, request_id)
        select a.id, a.actor, a.channel, a.action, a.project_id, a.target, a.details, a.request_id
          from ${jsonRecords(entries.map((entry) => row(entry, false)))} as a(id text, actor text, channel text, action text, project_id text, target text, details jsonb, request_id text)
        ${options?.onlyTargetsIn ? sql`where a.target in (${options.onlyTargetsIn})` : sql``}`;
    },
  };
}

import type { Knex } from 'knex';
import { newId } from '../ids.js';
import { keysetPage, type KeysetPage, type KeysetPageRequest } from '../db/keyset-page.js';
import { jsonRecords, sql, sqlQuery, type Sql } from '../db/sql.js';

/**
 * The channel a write came through (`claim_page`: a payer's refund claim, by the holder of its claim
 * link; `payer_page`: a payer on a checkout session's or payment link's public page; `btcpay`: a
 * shop plugin through the BTCPay-compatible API, with a Greenfield API key).
 */
export type AuditChannel = 'rest' | 'mcp' | 'cli' | 'dashboard' | 'system' | 'claim_page' | 'payer_page' | 'btcpay';

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
  /**
   * Reads the log newest first for operators (the dashboard), `limit` per page, keyed by id
   * (`id < cursor`). Only rows of `projectIds` are ever returned (the caller's projects; an empty
   * list returns nothing), narrowed by the other filters, which combine with AND.
   */
  list(filter: AuditListFilter): Promise<KeysetPage<AuditRecord>>;
}

/** Filters of `AuditLog.list`. */
export interface AuditListFilter extends KeysetPageRequest {
  /** The projects whose rows may be returned (required: the log is read per operator). */
  readonly projectIds: readonly string[];
  readonly actor?: string | undefined;
  readonly channel?: AuditChannel | undefined;
  /** Exact target, e.g. `invoice:<id>`. */
  readonly target?: string | undefined;
}

/** One stored audit row. */
export interface AuditRecord {
  readonly id: string;
  readonly actor: string;
  readonly channel: AuditChannel;
  readonly action: string;
  readonly project_id: string | null;
  readonly target: string | null;
  readonly details: Record<string, unknown> | null;
  readonly request_id: string | null;
  readonly created_at_iso: string;
}

/** An entry as its row for {@link jsonRecords}. */
const row = (entry: AuditEntry) => ({
  id: newId(),
  actor: entry.actor,
  channel: entry.channel,
  action: entry.action,
  project_id: entry.projectId ?? null,
  target: entry.target ?? null,
  details: entry.details ?? null,
  request_id: entry.requestId ?? null,
});

export function createAuditLog(db: Knex): AuditLog {
  const insert = (entries: readonly AuditEntry[], onlyTargetsIn?: Sql): Sql =>
    sql`insert into kernel_audit_log (id, actor, channel, action, project_id, target, details, request_id)
        select a.id, a.actor, a.channel, a.action, a.project_id, a.target, a.details, a.request_id
          from ${jsonRecords(entries.map((entry) => row(entry)))} as a(id text, actor text, channel text, action text, project_id text, target text, details jsonb, request_id text)
        ${onlyTargetsIn ? sql`where a.target in (${onlyTargetsIn})` : sql``}`;
  return {
    async record(entry, trx) {
      await sqlQuery(trx ?? db, insert([entry]));
    },
    async recordMany(entries, trx) {
      if (entries.length > 0) await sqlQuery(trx ?? db, insert(entries));
    },
    recordManySql(entries, options) {
      return insert(entries, options?.onlyTargetsIn);
    },
    async list(filter) {
      if (filter.projectIds.length === 0) return { items: [] };
      const rows = await sqlQuery<Omit<AuditRecord, 'created_at_iso'> & { created_at: Date }>(
        db,
        sql`select * from kernel_audit_log
             where project_id = any(${[...filter.projectIds]}::text[])
               ${filter.cursor ? sql`and id < ${filter.cursor}` : sql``}
               ${filter.actor ? sql`and actor = ${filter.actor}` : sql``}
               ${filter.channel ? sql`and channel = ${filter.channel}` : sql``}
               ${filter.target ? sql`and target = ${filter.target}` : sql``}
             order by id desc
             limit ${filter.limit + 1}`,
      );
      return keysetPage(rows, filter.limit, (page) => page.map(({ created_at, ...r }) => ({ ...r, created_at_iso: new Date(created_at).toISOString() })));
    },
  };
}

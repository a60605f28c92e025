import type { Knex } from 'knex';
import { newId } from '../ids.js';

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
}

const row = (entry: AuditEntry) => ({
  id: newId(),
  actor: entry.actor,
  channel: entry.channel,
  action: entry.action,
  project_id: entry.projectId ?? null,
  target: entry.target ?? null,
  details: entry.details ? JSON.stringify(entry.details) : null,
  request_id: entry.requestId ?? null,
});

export function createAuditLog(db: Knex): AuditLog {
  return {
    async record(entry, trx) {
      await (trx ?? db)('kernel_audit_log').insert(row(entry));
    },
    async recordMany(entries, trx) {
      if (entries.length > 0) await (trx ?? db)('kernel_audit_log').insert(entries.map(row));
    },
  };
}

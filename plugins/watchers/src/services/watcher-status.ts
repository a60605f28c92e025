import { isoTime, isoTimeOrNull, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import type { WatcherRegistry } from './watcher-registry.js';

/** One configured chain network's scanner, as an operator reads it. */
export interface WatcherStatus {
  readonly chain: string;
  readonly network: string;
  /** The chain's tip at the last scan; null before the first. */
  readonly head_height: string | null;
  /** The last block fully processed; null before the first scan. */
  readonly scanned_height: string | null;
  /** head − scanned, in blocks; null while either is unknown. */
  readonly lag: string | null;
  /** When the scanner last recorded a pass (or a failure). */
  readonly last_pass_iso: string | null;
  readonly consecutive_failures: number;
  readonly last_error: string | null;
  readonly last_error_at_iso: string | null;
}

/**
 * The watchers' health per configured chain network (the dashboard's overview): the registry says
 * what is configured, `watchers_cursors` what each scanner last did. Heights stay decimal strings.
 */
export class WatcherStatusReads {
  constructor(private readonly deps: { db: Knex; watchersRegistry: WatcherRegistry }) {}

  async status(): Promise<WatcherStatus[]> {
    const rows = await sqlQuery<{
      chain: string;
      network: string;
      height: string;
      head_height: string | null;
      consecutive_failures: number;
      last_error: string | null;
      last_error_at: Date | null;
      updated_at: Date;
    }>(this.deps.db, sql`select chain, network, height, head_height, consecutive_failures, last_error, last_error_at, updated_at from watchers_cursors`);
    const byKey = new Map(rows.map((r) => [`${r.chain}:${r.network}`, r]));
    return this.deps.watchersRegistry.list().map((target) => {
      const chain = target.adapter.definition.id;
      const row = byKey.get(`${chain}:${target.network}`);
      const head = row?.head_height == null ? null : String(row.head_height);
      const scanned = row?.height == null ? null : String(row.height);
      return {
        chain,
        network: target.network,
        head_height: head,
        scanned_height: scanned,
        lag: head !== null && scanned !== null ? String(BigInt(head) - BigInt(scanned)) : null,
        last_pass_iso: row ? isoTime(row.updated_at) : null,
        consecutive_failures: row?.consecutive_failures ?? 0,
        last_error: row?.last_error ?? null,
        last_error_at_iso: isoTimeOrNull(row?.last_error_at),
      };
    });
  }
}

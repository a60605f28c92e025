import type { Knex } from 'knex';
import type { AppError } from '@gw/chain-api';
import { coreErrors } from '../errors/core-errors.js';
import { sql, sqlCommitWithoutFlushWait, sqlQuery } from '../db/sql.js';

export interface RateLimitRule {
  /** Counter key, e.g. `invoices.create:project:<id>` or `mcp_tool_per_token:pat:<id>`. */
  readonly key: string;
  /** Requests allowed per window. */
  readonly limit: number;
  /** Window length in seconds (fixed windows aligned to the Unix epoch of the database clock). */
  readonly windowSeconds: number;
}

export interface RateLimitResult {
  readonly allowed: boolean;
  readonly count: number;
  readonly remaining: number;
  /** Seconds until the window resets (at least 1). */
  readonly retryAfter: number;
}

/**
 * Fixed-window counters in PostgreSQL, the windows cut on the database clock, so a limit holds
 * across every gateway instance whatever its own clock says. One upsert per check; expired
 * windows are swept by the `kernel.rate-limit-sweep` job. A check does not wait for its WAL flush
 * (`sqlCommitWithoutFlushWait`): every instance sees the count at once, and a PostgreSQL crash
 * can lose no more than the hits of its last fraction of a second.
 */
export interface RateLimiter {
  /** Counts one hit and reports whether it was within the limit. */
  hit(rule: RateLimitRule): Promise<RateLimitResult>;
  /**
   * Counts `hits` hits of one key in one statement (a batch of requests) and reports, in order,
   * which of them were within the limit: the first `limit - countBefore` are.
   */
  hitMany(rule: RateLimitRule, hits: number): Promise<RateLimitResult[]>;
  /**
   * `hitMany` of several keys in one statement (a batch of requests of several callers): one
   * entry per key, results in the same order. Keys must be distinct.
   */
  hitEach(entries: readonly { readonly rule: RateLimitRule; readonly hits: number }[]): Promise<RateLimitResult[][]>;
  /**
   * Counts one hit and throws when over the limit: 429 with `Retry-After`; `error` picks the code
   * (default `rate_limit_exceeded`, e.g. `sandbox_rate_limit_exceeded` for sandbox routes).
   */
  consume(rule: RateLimitRule, error?: (retryAfter: number) => AppError): Promise<RateLimitResult>;
  /** Deletes expired windows; returns how many rows went. */
  sweep(): Promise<number>;
}

export function createRateLimiter(db: Knex): RateLimiter {
  function check(rule: RateLimitRule, hits: number): void {
    if (!Number.isInteger(rule.limit) || rule.limit < 0 || !Number.isInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
      throw new Error(`invalid rate limit rule for ${rule.key}`);
    }
    if (!Number.isInteger(hits) || hits < 1) throw new Error(`invalid number of hits for ${rule.key}`);
  }
  async function hitEach(entries: readonly { readonly rule: RateLimitRule; readonly hits: number }[]): Promise<RateLimitResult[][]> {
    if (entries.length === 0) return [];
    for (const { rule, hits } of entries) check(rule, hits);
    if (new Set(entries.map((e) => e.rule.key)).size !== entries.length) throw new Error('hitEach: rate limit keys must be distinct');
    // Counter rows are locked in key order: concurrent statements over overlapping keys then
    // queue instead of deadlocking. Windows are cut on the database clock, so every instance
    // counts into the same window whatever its own clock says.
    const order = [...entries.keys()].sort((a, b) => (entries[a]!.rule.key < entries[b]!.rule.key ? -1 : 1));
    const rows = await sqlQuery<{ key: string; count: string | number; retry_after: number }>(
      db,
      sql`with t as (
            select t.key, t.hits, t.window_seconds, t.n,
                   (floor(extract(epoch from now()) / t.window_seconds) * t.window_seconds)::bigint as window_start
              from unnest(${order.map((i) => entries[i]!.rule.key)}::text[], ${order.map((i) => entries[i]!.hits)}::int[],
                          ${order.map((i) => entries[i]!.rule.windowSeconds)}::int[])
                   with ordinality as t(key, hits, window_seconds, n)
          )
          insert into kernel_rate_limit_counters (key, window_start, count, expires_at)
          select key, window_start, hits, to_timestamp(window_start + window_seconds) from t cross join ${sqlCommitWithoutFlushWait} as no_flush_wait order by n
          on conflict (key, window_start) do update set count = kernel_rate_limit_counters.count + excluded.count
          returning key, count, greatest(1, floor(extract(epoch from expires_at) - floor(extract(epoch from now()))))::int as retry_after`,
    );
    const found = new Map(rows.map((row) => [row.key, { count: Number(row.count), retryAfter: row.retry_after }]));
    return entries.map(({ rule, hits }) => {
      const { count: last, retryAfter } = found.get(rule.key)!;
      return Array.from({ length: hits }, (_, k) => {
        const count = last - hits + 1 + k;
        return { allowed: count <= rule.limit, count, remaining: Math.max(0, rule.limit - count), retryAfter };
      });
    });
  }
  async function hitMany(rule: RateLimitRule, hits: number): Promise<RateLimitResult[]> {
    return (await hitEach([{ rule, hits }]))[0]!;
  }
  async function hit(rule: RateLimitRule): Promise<RateLimitResult> {
    return (await hitMany(rule, 1))[0]!;
  }
  return {
    hit,
    hitMany,
    hitEach,
    async consume(rule, error) {
      const result = await hit(rule);
      if (!result.allowed) {
        throw error
          ? error(result.retryAfter)
          : coreErrors.rate_limit_exceeded({ retryAfter: result.retryAfter, details: { limit: rule.limit, window_seconds: rule.windowSeconds } });
      }
      return result;
    },
    async sweep() {
      const [gone] = await sqlQuery<{ n: number }>(
        db,
        sql`with gone as (delete from kernel_rate_limit_counters where expires_at < now() returning 1) select count(*)::int as n from gone`,
      );
      return gone!.n;
    },
  };
}

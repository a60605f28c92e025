import type { Knex } from 'knex';
import type { AppError } from '../errors/app-error.js';
import { coreErrors } from '../errors/core-errors.js';

export interface RateLimitRule {
  /** Counter key, e.g. `invoices.create:project:<id>` or `mcp_tool_per_token:pat:<id>`. */
  readonly key: string;
  /** Requests allowed per window. */
  readonly limit: number;
  /** Window length in seconds (fixed windows aligned to the Unix epoch). */
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
 * Fixed-window counters in PostgreSQL, so a limit holds across every gateway instance. One upsert
 * per check; expired windows are swept by the `kernel.rate-limit-sweep` job.
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
   * Counts one hit and throws when over the limit: 429 with `Retry-After`; `error` picks the code
   * (default `rate_limit_exceeded`, e.g. `sandbox_rate_limit_exceeded` for sandbox routes).
   */
  consume(rule: RateLimitRule, error?: (retryAfter: number) => AppError): Promise<RateLimitResult>;
  /** Deletes expired windows; returns how many rows went. */
  sweep(): Promise<number>;
}

export function createRateLimiter(db: Knex, now: () => number = () => Date.now()): RateLimiter {
  async function hitMany(rule: RateLimitRule, hits: number): Promise<RateLimitResult[]> {
    if (!Number.isInteger(rule.limit) || rule.limit < 0 || !Number.isInteger(rule.windowSeconds) || rule.windowSeconds < 1) {
      throw new Error(`invalid rate limit rule for ${rule.key}`);
    }
    if (!Number.isInteger(hits) || hits < 1) throw new Error(`invalid number of hits for ${rule.key}`);
    const nowSeconds = Math.floor(now() / 1000);
    const windowStart = nowSeconds - (nowSeconds % rule.windowSeconds);
    const windowEnd = windowStart + rule.windowSeconds;
    const result = await db.raw<{ rows: { count: number }[] }>(
      `insert into kernel_rate_limit_counters (key, window_start, count, expires_at)
       values (?, ?, ?, to_timestamp(?))
       on conflict (key, window_start) do update set count = kernel_rate_limit_counters.count + excluded.count
       returning count`,
      [rule.key, windowStart, hits, windowEnd],
    );
    const last = Number(result.rows[0]!.count);
    return Array.from({ length: hits }, (_, i) => {
      const count = last - hits + 1 + i;
      return { allowed: count <= rule.limit, count, remaining: Math.max(0, rule.limit - count), retryAfter: Math.max(1, windowEnd - nowSeconds) };
    });
  }
  async function hit(rule: RateLimitRule): Promise<RateLimitResult> {
    return (await hitMany(rule, 1))[0]!;
  }
  return {
    hit,
    hitMany,
    async consume(rule, error) {
      const result = await hit(rule);
      if (!result.allowed) {
        throw error ? error(result.retryAfter) : coreErrors.rate_limit_exceeded({ retryAfter: result.retryAfter, details: { limit: rule.limit, window_seconds: rule.windowSeconds } });
      }
      return result;
    },
    async sweep() {
      return db('kernel_rate_limit_counters').where('expires_at', '<', db.fn.now()).delete();
    },
  };
}

import { createBatcher, sql, sqlQuery, SIGNATURE_WINDOW_SECONDS } from '@gw/kernel';
import type { Knex } from 'knex';

/**
 * Seconds a seen signature is kept beyond its timestamp: the window, plus a margin for clocks of
 * instances that disagree a little (each checks the window with its own clock).
 */
export const SIGNATURE_RETENTION_SECONDS = SIGNATURE_WINDOW_SECONDS + 60;

export interface SignatureUse {
  readonly projectId: string;
  /** The request's 64-hex signature: it covers method, target, timestamp and body. */
  readonly signature: string;
  /** The request's `X-Timestamp` (Unix seconds). */
  readonly timestamp: number;
}

/**
 * Makes signed writes single-use: the first use of a signature is recorded in PostgreSQL, so a
 * replay of the same signed request is refused by every gateway instance, concurrent copies
 * included (the primary key decides). Claims arriving together are written in one statement.
 */
export class SignatureReplayGuard {
  private readonly claims;

  constructor(private readonly deps: { db: Knex }) {
    this.claims = createBatcher<SignatureUse, boolean>({
      maxBatch: 500,
      concurrency: 2,
      run: async (uses) => {
        const fresh = await this.claimMany(uses);
        return fresh.map((value) => ({ ok: true, value }));
      },
    });
  }

  /** True for the first use of this signature, false for a replay. */
  claim(use: SignatureUse): Promise<boolean> {
    return this.claims.submit(use);
  }

  /** `claim` of several uses in one statement; a signature repeated within the batch is fresh once. */
  async claimMany(uses: readonly SignatureUse[]): Promise<boolean[]> {
    if (uses.length === 0) return [];
    const rows = await sqlQuery<{ project_id: string; signature: string }>(
      this.deps.db,
      sql`insert into tenancy_request_signatures (project_id, signature, expires_at)
          select t.project_id, t.signature, to_timestamp(t.ts + ${SIGNATURE_RETENTION_SECONDS})
            from unnest(${uses.map((u) => u.projectId)}::text[], ${uses.map((u) => u.signature)}::text[], ${uses.map((u) => u.timestamp)}::bigint[])
                 as t(project_id, signature, ts)
          on conflict (project_id, signature) do nothing
          returning project_id, signature`,
    );
    const inserted = new Set(rows.map((row) => `${row.project_id}:${row.signature}`));
    return uses.map((use) => inserted.delete(`${use.projectId}:${use.signature}`));
  }

  /** Deletes signatures whose window has passed; returns how many went. */
  async sweep(): Promise<number> {
    const gone = await sqlQuery<{ n: number }>(this.deps.db, sql`with gone as (delete from tenancy_request_signatures where expires_at < now() returning 1) select count(*)::int as n from gone`);
    return gone[0]!.n;
  }
}

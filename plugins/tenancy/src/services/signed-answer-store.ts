import { createHash } from 'node:crypto';
import {
  coreErrors,
  createBatcher,
  jsonRecords,
  sql,
  sqlCommitWithoutFlushWait,
  sqlQuery,
  SIGNATURE_WINDOW_SECONDS,
  type AnswerReplay,
  type RecordedAnswer,
} from '@gw/kernel';
import type { Knex } from 'knex';

/**
 * Seconds an answer is kept beyond its request's timestamp: the window, plus a margin for clocks
 * of instances that disagree a little (each checks the window with its own clock).
 */
export const SIGNED_ANSWER_RETENTION_SECONDS = SIGNATURE_WINDOW_SECONDS + 60;

/**
 * How long a copy waits for the first copy, still running, to answer (longer than the event
 * stream's longest long poll, 25 s); then 503 with Retry-After.
 */
export const PENDING_WAIT_MS = 30_000;
const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;

/** One signed request: identical copies share it. */
export interface SignedRequestKey {
  readonly projectId: string;
  /** The request's 64-hex signature (it covers method, signed target, timestamp and body). */
  readonly signature: string;
  /**
   * The target as received (`ctx.originalUrl`). Part of the key because a pathname-only signature
   * does not cover the query: two reads of one pathname in one second differ by their query.
   */
  readonly target: string;
  /** The request's `X-Timestamp` (Unix seconds). */
  readonly timestamp: number;
}

interface Keyed {
  readonly projectId: string;
  readonly hash: string;
  readonly timestamp: number;
}

interface AnswerRow {
  status: number | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
}

type Claim = { readonly kind: 'fresh' } | { readonly kind: 'answered'; readonly answer: RecordedAnswer } | { readonly kind: 'pending' };

/**
 * Answers of signed requests in PostgreSQL, so identical copies of one signed request (a retry
 * after a lost answer, a replay of a captured one) get the first answer on every instance
 * (docs/decisions.md, "Signing forms and repeated signed requests"). Claims and records
 * arriving together are written in one statement each.
 */
export class SignedAnswerStore {
  private readonly claims;
  private readonly records;

  constructor(private readonly deps: { db: Knex }) {
    this.claims = createBatcher<Keyed, boolean>({
      maxBatch: 500,
      concurrency: 2,
      run: async (keys) => (await this.claimMany(keys)).map((value) => ({ ok: true, value })),
    });
    this.records = createBatcher<{ key: Keyed; answer: RecordedAnswer }, boolean>({
      maxBatch: 500,
      concurrency: 2,
      run: async (items) => (await this.recordMany(items)).map((value) => ({ ok: true, value })),
    });
  }

  /**
   * `claim`: the first copy inserts a pending row before it runs and records its answer after; a
   * copy finding the row waits for that answer (a row released after a 5xx lets it run itself).
   */
  async claim(request: SignedRequestKey): Promise<AnswerReplay> {
    const key = keyOf(request);
    const deadline = Date.now() + PENDING_WAIT_MS;
    for (let pause = FIRST_POLL_MS; ; pause = Math.min(pause * 2, MAX_POLL_MS)) {
      const claim = await this.tryClaim(key);
      if (claim.kind === 'answered') return earlierAnswer(claim.answer);
      if (claim.kind === 'fresh') {
        return {
          settle: async (answer) => {
            if (answer) await this.complete(key, answer);
            else await this.release(key);
            return undefined;
          },
        };
      }
      if (Date.now() >= deadline) {
        throw coreErrors.service_unavailable({
          message: 'An identical request is still being processed; send it again after Retry-After to receive its answer.',
        });
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /**
   * `record`: copies run (the route is idempotent by design, or a read); the first answer recorded
   * is the one every copy sends. One statement on the way out, none on the way in, and that one
   * does not wait for its WAL flush (`sqlCommitWithoutFlushWait`): a copy after a PostgreSQL crash
   * that lost the answer runs the route again, which the route makes harmless (docs/decisions.md,
   * "Issue 42: creates").
   */
  record(request: SignedRequestKey): AnswerReplay {
    const key = keyOf(request);
    return {
      settle: async (answer) => {
        if (answer && (await this.records.submit({ key, answer }))) return undefined;
        const row = await this.find(key);
        return row?.status != null ? toAnswer(row) : undefined;
      },
    };
  }

  /** Deletes answers whose window has passed; returns how many went. */
  async sweep(): Promise<number> {
    const gone = await sqlQuery<{ n: number }>(
      this.deps.db,
      sql`with gone as (delete from tenancy_signed_answers where expires_at < now() returning 1) select count(*)::int as n from gone`,
    );
    return gone[0]!.n;
  }

  private async tryClaim(key: Keyed): Promise<Claim> {
    if (await this.claims.submit(key)) return { kind: 'fresh' };
    const row = await this.find(key);
    if (!row) return { kind: 'pending' }; // released between the two statements: claim again
    return row.status == null ? { kind: 'pending' } : { kind: 'answered', answer: toAnswer(row) };
  }

  /** Inserts pending rows; true for each key this call claimed (a key repeated in the batch once). */
  private async claimMany(keys: readonly Keyed[]): Promise<boolean[]> {
    if (keys.length === 0) return [];
    const rows = await sqlQuery<{ project_id: string; request_hash: string }>(
      this.deps.db,
      sql`insert into tenancy_signed_answers (project_id, request_hash, expires_at)
          select t.project_id, t.request_hash, to_timestamp(t.ts + ${SIGNED_ANSWER_RETENTION_SECONDS})
            from unnest(${keys.map((k) => k.projectId)}::text[], ${keys.map((k) => k.hash)}::text[], ${keys.map((k) => k.timestamp)}::bigint[])
                 as t(project_id, request_hash, ts)
          on conflict (project_id, request_hash) do nothing
          returning project_id, request_hash`,
    );
    const inserted = new Set(rows.map((row) => `${row.project_id}:${row.request_hash}`));
    return keys.map((key) => inserted.delete(`${key.projectId}:${key.hash}`));
  }

  /** Inserts finished answers; true for each one that is now the recorded answer. */
  private async recordMany(items: readonly { key: Keyed; answer: RecordedAnswer }[]): Promise<boolean[]> {
    if (items.length === 0) return [];
    const records = items.map(({ key, answer }) => ({
      project_id: key.projectId,
      request_hash: key.hash,
      ts: key.timestamp,
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      body: answer.body.toString('base64'),
    }));
    const rows = await sqlQuery<{ project_id: string; request_hash: string }>(
      this.deps.db,
      sql`insert into tenancy_signed_answers (project_id, request_hash, expires_at, status, headers, body)
          select r.project_id, r.request_hash, to_timestamp(r.ts + ${SIGNED_ANSWER_RETENTION_SECONDS}), r.status, r.headers::jsonb, decode(r.body, 'base64')
            from ${jsonRecords(records)} as r(project_id text, request_hash text, ts bigint, status smallint, headers text, body text)
                 cross join ${sqlCommitWithoutFlushWait} as no_flush_wait
          on conflict (project_id, request_hash) do nothing
          returning project_id, request_hash`,
    );
    const inserted = new Set(rows.map((row) => `${row.project_id}:${row.request_hash}`));
    return items.map(({ key }) => inserted.delete(`${key.projectId}:${key.hash}`));
  }

  private async complete(key: Keyed, answer: RecordedAnswer): Promise<void> {
    await sqlQuery(
      this.deps.db,
      sql`update tenancy_signed_answers set status = ${answer.status}, headers = ${JSON.stringify(answer.headers)}::jsonb, body = ${answer.body}::bytea
           where project_id = ${key.projectId} and request_hash = ${key.hash}`,
    );
  }

  /** The first copy failed without effect (5xx, 429): a copy may run again. */
  private async release(key: Keyed): Promise<void> {
    await sqlQuery(this.deps.db, sql`delete from tenancy_signed_answers where project_id = ${key.projectId} and request_hash = ${key.hash} and status is null`);
  }

  private async find(key: Keyed): Promise<AnswerRow | undefined> {
    const rows = await sqlQuery<AnswerRow>(
      this.deps.db,
      sql`select status, headers, body from tenancy_signed_answers where project_id = ${key.projectId} and request_hash = ${key.hash}`,
    );
    return rows[0];
  }
}

/**
 * The key of one signed request among its project's: SHA-256 of its signature and the target as
 * received. Only whoever saw the request knows its signature, so the hash cannot be guessed.
 */
export function signedRequestHash(signature: string, target: string): string {
  return createHash('sha256').update(`${signature}\n${target}`, 'utf8').digest('hex');
}

function keyOf(request: SignedRequestKey): Keyed {
  return { projectId: request.projectId, hash: signedRequestHash(request.signature, request.target), timestamp: request.timestamp };
}

/** A stored answer sent to a copy instead of running the route; nothing to settle. */
export function earlierAnswer(answer: RecordedAnswer): AnswerReplay {
  return { earlier: answer, settle: async () => undefined };
}

function toAnswer(row: AnswerRow): RecordedAnswer {
  return { status: row.status!, headers: row.headers ?? {}, body: row.body ?? Buffer.alloc(0) };
}

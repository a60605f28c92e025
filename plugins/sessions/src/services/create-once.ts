import { idempotencyDigest, isUniqueViolation } from '@gw/kernel';
import type { Knex } from 'knex';

/** What {@link createOnce} does for its caller: find an earlier answer under the key, create a new one. */
export interface OnceCreator<T> {
  /** The Idempotency-Key's unique index: its violation means a concurrent create under the key committed first. */
  readonly constraint: string;
  /** The answer of an earlier request under `key`; refuses another request (another digest) under it. */
  readonly replayed: (key: string, digest: string) => Promise<T | undefined>;
  /** The new record, in the create's transaction. */
  readonly create: (trx: Knex.Transaction, digest: string) => Promise<T>;
}

/**
 * A partner's create under an optional Idempotency-Key (sessions, payment links): the answer of an
 * earlier request under the key, else a create in a transaction of `db`; when a concurrent create
 * under the same key commits first (the key's unique index refuses this one), that create's answer.
 * Both get the digest of `input`.
 */
export async function createOnce<T>(db: Knex, key: string | undefined, input: unknown, creator: OnceCreator<T>): Promise<{ value: T; created: boolean }> {
  const digest = idempotencyDigest(input);
  if (key !== undefined) {
    const replay = await creator.replayed(key, digest);
    if (replay) return { value: replay, created: false };
  }
  try {
    return { value: await db.transaction((trx) => creator.create(trx, digest)), created: true };
  } catch (error) {
    // A concurrent create under the same key committed first: answer it.
    if (key !== undefined && isUniqueViolation(error, creator.constraint)) {
      const replay = await creator.replayed(key, digest);
      if (replay) return { value: replay, created: false };
    }
    throw error;
  }
}

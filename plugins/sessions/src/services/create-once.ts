import { createHash } from 'node:crypto';
import { isUniqueViolation } from '@gw/kernel';

/** The SHA-256 of a request's JSON: what a replay under the same Idempotency-Key must match. */
function requestDigest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

/**
 * A partner's create under an optional Idempotency-Key (sessions, payment links): the answer of an
 * earlier request under the key (`replayed`, which refuses another request under it), else
 * `create`; when a concurrent create under the same key commits first (`constraint`, the key's
 * unique index, refuses this one), that create's answer. Both get the digest of `input`.
 */
export async function createOnce<T>(
  key: string | undefined,
  input: unknown,
  constraint: string,
  replayed: (key: string, digest: string) => Promise<T | undefined>,
  create: (digest: string) => Promise<T>,
): Promise<{ value: T; created: boolean }> {
  const digest = requestDigest(input);
  if (key !== undefined) {
    const replay = await replayed(key, digest);
    if (replay) return { value: replay, created: false };
  }
  try {
    return { value: await create(digest), created: true };
  } catch (error) {
    // A concurrent create under the same key committed first: answer it.
    if (key !== undefined && isUniqueViolation(error, constraint)) {
      const replay = await replayed(key, digest);
      if (replay) return { value: replay, created: false };
    }
    throw error;
  }
}

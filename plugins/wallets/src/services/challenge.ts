import { createHash, randomBytes } from 'node:crypto';
import type { ChainId } from '@gw/kernel';

/** Short, stable identifier of an account key: first 16 hex chars of sha256(`chain:canonical`). */
export function keyFingerprint(chain: ChainId, canonical: string): string {
  return createHash('sha256').update(`${chain}:${canonical}`).digest('hex').slice(0, 16);
}

/** A fresh ownership challenge. */
export interface Challenge {
  readonly message: string;
  readonly nonce: string;
  readonly expiresAt: Date;
}

/**
 * Builds the text the wallet of receive index 0 signs. One line (no line-ending ambiguity when it
 * is copied between terminals and wallets), binding project, chain, key and expiry to a random
 * 128-bit nonce so a signature can be used for nothing else.
 */
export function createChallenge(input: { projectId: string; chain: ChainId; fingerprint: string; now: Date; ttlSeconds: number }): Challenge {
  const nonce = randomBytes(16).toString('hex');
  const expiresAt = new Date(input.now.getTime() + input.ttlSeconds * 1000);
  const message =
    `Gateway wallet ownership challenge: project ${input.projectId}, chain ${input.chain}, ` +
    `key ${input.fingerprint}, nonce ${nonce}, expires ${expiresAt.toISOString()}`;
  return { message, nonce, expiresAt };
}

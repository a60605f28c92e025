import { createHash } from 'node:crypto';
import type { ErrorSpec } from '@gw/chain-api';
import type { Context } from 'koa';
import { coreErrors } from '../errors/index.js';

/** The longest `Idempotency-Key` header a create route accepts. */
export const MAX_IDEMPOTENCY_KEY = 255;

/**
 * The 422 `idempotency_key_reused` a create route's catalogue declares (sessions, payouts): one spec,
 * so every owner answers the same.
 */
export const IDEMPOTENCY_KEY_REUSED: ErrorSpec = { status: 422, message: 'This Idempotency-Key was used for a different request.' };

/**
 * A request's `Idempotency-Key` header, or undefined when it is absent or empty. Throws 400
 * `validation_error` naming `Idempotency-Key` when it is longer than {@link MAX_IDEMPOTENCY_KEY}.
 */
export function idempotencyKeyHeader(ctx: Pick<Context, 'get'>): string | undefined {
  const key = ctx.get('Idempotency-Key');
  if (key === '') return undefined;
  if (key.length > MAX_IDEMPOTENCY_KEY) {
    throw coreErrors.validation_error({ message: `Idempotency-Key has at most ${MAX_IDEMPOTENCY_KEY} characters.`, details: { field: 'Idempotency-Key' } });
  }
  return key;
}

/**
 * The SHA-256 (hex) of a create request's JSON: what a replay under the same Idempotency-Key must
 * match, or the route answers {@link IDEMPOTENCY_KEY_REUSED}.
 */
export function idempotencyDigest(request: unknown): string {
  return createHash('sha256').update(JSON.stringify(request)).digest('hex');
}

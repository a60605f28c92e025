import { coreErrors, sql, sqlQuery } from '@gw/kernel';
import type { RateQuote } from '@gw/plugin-rates/contract';
import type { Knex } from 'knex';

/**
 * Rules every way of creating an invoice shares (REST create, orphan attribution): the advisory
 * lock that serialises creations under one (project, external_id), the metadata bound, and the
 * stored form of the rate snapshot.
 */

/** The advisory-lock key of (project, external_id); creations under it serialise. */
export function externalIdLockKey(projectId: string, externalId: string): string {
  return `invoices:${projectId}:${externalId}`;
}

/** Takes the (project, external_id) lock in `trx` until it ends. */
export async function lockExternalId(trx: Knex.Transaction, projectId: string, externalId: string): Promise<void> {
  await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${externalIdLockKey(projectId, externalId)}, 0))`);
}

/** Largest `metadata` accepted, as JSON bytes. */
export const METADATA_MAX_BYTES = 16_384;

/** 400 `validation_error` for metadata larger than {@link METADATA_MAX_BYTES} as JSON. */
export function checkMetadataSize(metadata: unknown): void {
  if (metadata && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    throw coreErrors.validation_error({ message: `metadata is larger than ${METADATA_MAX_BYTES} bytes as JSON`, details: { field: 'metadata' } });
  }
}

/** The `rate_snapshot` column of an invoice priced with `quote`. */
export function storedRateSnapshot(quote: RateQuote): { source: string; pair: string; rate: string; fetched_at_iso: string } {
  return { source: quote.source, pair: quote.pair, rate: quote.rate, fetched_at_iso: quote.fetchedAt.toISOString() };
}

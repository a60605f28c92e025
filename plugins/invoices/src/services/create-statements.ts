import { sql, sqlQuery, type AuditEntry, type AuditLog, type Sql } from '@gw/kernel';
import type { Knex } from 'knex';
import type { InvoiceRow } from './create-plan.js';

/**
 * The statements of invoice creation (ADR 0003). A batch of creates runs two statements in one
 * transaction: {@link batchReadSql} (locks, stored keys, policies, pool picks) and
 * {@link batchWriteSql} (the invoices, the pool rows they take, their audit rows). Every path that
 * writes invoice rows (the batch, a create on its own, orphan attribution) inserts them with the one
 * fragment {@link insertInvoicesSql}; outside a batch {@link insertInvoices} adds their audit rows in
 * the same statement.
 */

/** Statement (1) of a batch: the (project, external_id) advisory locks in one global order, the keys already stored, the policies and the pools. */
export function batchReadSql(input: {
  readonly lockKeys: readonly string[];
  readonly keys: readonly { readonly projectId: string; readonly externalId: string }[];
  readonly policies: Sql;
  readonly picks: { readonly ctes: Sql; readonly result: Sql };
}): Sql {
  return sql`with locks as materialized (
               select pg_advisory_xact_lock(h) from (select hashtextextended(k, 0) as h from unnest(${input.lockKeys}::text[]) as k order by h offset 0) ordered
             ),
             ${input.picks.ctes}
             select (select count(*) from locks)::int as locked,
                    (select coalesce(json_agg(json_build_array(i.project_id, i.external_id)), '[]') from invoices_invoices i
                      where (i.project_id, i.external_id) in (select * from unnest(${input.keys.map((k) => k.projectId)}::text[], ${input.keys.map((k) => k.externalId)}::text[]))) as stored,
                    ${input.policies} as policies,
                    ${input.picks.result} as pools`;
}

/**
 * Inserts invoice rows with `on conflict (project_id, external_id) do nothing` (a row another
 * transaction created under the same key is not inserted) and returns `id, pool_address_id,
 * metadata` of those inserted: a data-modifying fragment for a CTE.
 */
export function insertInvoicesSql(rows: readonly InvoiceRow[]): Sql {
  const column = <K extends keyof InvoiceRow>(key: K) => rows.map((row) => row[key]);
  return sql`insert into invoices_invoices (id, project_id, project_kind, external_id, request_fingerprint, coin, chain, address, pool_address_id,
               address_shared, address_released_at, derivation_path, verification_standard, amount_units, amount_crypto, amount_usd, rate_snapshot,
               price_currency, price_amount, price_rate, payment_token, payment_reference, payment_uri, callback_url, checkout_token, return_url, cancel_url, metadata, matching_mode, confirmation_threshold, underpayment_tolerance, status, expires_at, created_at, updated_at)
             select r.id, r.project_id, r.project_kind, r.external_id, r.request_fingerprint, r.coin, r.chain, r.address, r.pool_address_id,
                    r.address_shared, r.address_released_at, r.derivation_path, r.verification_standard, r.amount_units::numeric, r.amount_crypto,
                    r.amount_usd::numeric, r.rate_snapshot::jsonb, r.price_currency, r.price_amount::numeric, r.price_rate::numeric, r.payment_token, r.payment_reference, r.payment_uri, r.callback_url, r.checkout_token, r.return_url, r.cancel_url, r.metadata::jsonb, r.matching_mode,
                    r.confirmation_threshold, r.underpayment_tolerance::numeric, r.status, r.expires_at, r.created_at, r.created_at
               from unnest(${column('id')}::text[], ${column('project_id')}::text[], ${column('project_kind')}::text[], ${column('external_id')}::text[],
                           ${column('request_fingerprint')}::text[], ${column('coin')}::text[], ${column('chain')}::text[], ${column('address')}::text[],
                           ${column('pool_address_id')}::text[], ${column('address_shared')}::boolean[],
                           ${rows.map((row) => row.address_released_at?.toISOString() ?? null)}::timestamptz[], ${column('derivation_path')}::text[],
                           ${column('verification_standard')}::text[], ${rows.map((row) => row.amount_units.toString())}::text[], ${column('amount_crypto')}::text[], ${column('amount_usd')}::text[],
                           ${rows.map((row) => (row.rate_snapshot ? JSON.stringify(row.rate_snapshot) : null))}::text[],
                           ${column('price_currency')}::text[], ${column('price_amount')}::text[], ${column('price_rate')}::text[], ${column('payment_token')}::text[], ${column('payment_reference')}::text[],
                           ${column('payment_uri')}::text[], ${column('callback_url')}::text[], ${column('checkout_token')}::text[], ${column('return_url')}::text[], ${column('cancel_url')}::text[], ${rows.map((row) => (row.metadata === null ? null : JSON.stringify(row.metadata)))}::text[],
                           ${column('matching_mode')}::text[], ${column('confirmation_threshold')}::int[], ${column('underpayment_tolerance')}::text[], ${column('status')}::text[],
                           ${rows.map((row) => row.expires_at.toISOString())}::timestamptz[], ${rows.map((row) => row.created_at.toISOString())}::timestamptz[])
                    as r(id, project_id, project_kind, external_id, request_fingerprint, coin, chain, address, pool_address_id, address_shared,
                         address_released_at, derivation_path, verification_standard, amount_units, amount_crypto, amount_usd, rate_snapshot,
                         price_currency, price_amount, price_rate, payment_token, payment_reference,
                         payment_uri, callback_url, checkout_token, return_url, cancel_url, metadata, matching_mode, confirmation_threshold, underpayment_tolerance, status, expires_at, created_at)
             on conflict (project_id, external_id) do nothing
             returning id, pool_address_id, metadata`;
}

/**
 * Statement (2) of a batch: the invoices inserted, exactly the pool rows they use taken (`take`,
 * the address pool's fragment over `select pool_address_id, id from ins`), and the audit rows of
 * those really inserted. Returns `[id, metadata]` of each inserted invoice and how many rows were
 * taken.
 */
export function batchWriteSql(rows: readonly InvoiceRow[], take: (from: Sql) => Sql, audit: AuditLog, audits: readonly AuditEntry[]): Sql {
  return sql`with ins as (${insertInvoicesSql(rows)}),
             taken as (${take(sql`select pool_address_id, id from ins`)}),
             audited as (${audit.recordManySql(audits, { onlyTargetsIn: sql`select 'invoice:' || id from ins` })})
             select (select coalesce(json_agg(json_build_array(id, metadata)), '[]') from ins) as inserted, (select count(*) from taken)::int as taken`;
}

/**
 * Inserts invoice rows and the audit rows of those inserted in one statement, in `db` (a create
 * on its own, orphan attribution). Returns the stored `metadata` of each inserted id; a row whose
 * (project, external_id) was taken meanwhile is absent.
 */
export async function insertInvoices(
  db: Knex | Knex.Transaction,
  audit: AuditLog,
  rows: readonly InvoiceRow[],
  audits: readonly AuditEntry[],
): Promise<Map<string, Record<string, unknown> | null>> {
  const [written] = await sqlQuery<{ inserted: [string, Record<string, unknown> | null][] }>(
    db,
    sql`with ins as (${insertInvoicesSql(rows)}),
             audited as (${audit.recordManySql(audits, { onlyTargetsIn: sql`select 'invoice:' || id from ins` })})
        select (select coalesce(json_agg(json_build_array(id, metadata)), '[]') from ins) as inserted`,
  );
  return new Map(written!.inserted);
}

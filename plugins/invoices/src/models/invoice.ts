import { withUnitsColumns, type ChainId, type CoinId, type ProjectKind, type VerificationStandard } from '@gw/kernel';
import { Model, type Pojo } from 'objection';
import type { MatchingMode } from '../config.js';
import type { InvoiceStatus } from '../invoice-status.js';

/** Stored exchange-rate snapshot (the API's `rate_snapshot`). */
export interface StoredRateSnapshot {
  source: string;
  pair: string;
  rate: string;
  fetched_at_iso: string;
}

/** Base-units columns of `invoices_invoices`, read as bigint. */
const UNITS_COLUMNS = ['amount_units'];

/**
 * One invoice. Numeric columns come back from pg as strings; `amount_units` is read as bigint
 * (`$parseDatabaseJson` for model queries, {@link invoiceOfRow} for plain SQL).
 */
export class Invoice extends Model {
  static override tableName = 'invoices_invoices';
  static override jsonAttributes = ['rate_snapshot', 'metadata', 'event_counts'];
  id!: string;
  project_id!: string;
  project_kind!: ProjectKind;
  external_id!: string;
  request_fingerprint!: string;
  coin!: CoinId;
  chain!: ChainId;
  address!: string;
  pool_address_id!: string;
  address_shared!: boolean;
  address_released_at!: Date | null;
  derivation_path!: string;
  verification_standard!: VerificationStandard;
  amount_units!: bigint;
  amount_crypto!: string;
  amount_usd!: string | null;
  rate_snapshot!: StoredRateSnapshot | null;
  /** A price in a fiat currency (issue 38): the ISO 4217 code, the amount in it and its USD per unit at creation; null otherwise. */
  price_currency!: string | null;
  price_amount!: string | null;
  price_rate!: string | null;
  payment_token!: string;
  /** The invoice's payment reference on a chain with payment references (issue 43: Solana Pay `reference`); null elsewhere. */
  payment_reference!: string | null;
  payment_uri!: string;
  callback_url!: string | null;
  /** The hosted checkout page's secret path segment (unique, random). */
  checkout_token!: string;
  return_url!: string | null;
  cancel_url!: string | null;
  metadata!: Record<string, unknown> | null;
  matching_mode!: MatchingMode;
  confirmation_threshold!: number;
  /** The project's underpayment tolerance when the invoice was created: a share of the amount, "0" (none) to "0.05" (issue 38). */
  underpayment_tolerance!: string;
  status!: InvoiceStatus;
  /** Events sent so far per type (`paid` → 1), for the lifecycle's event ids. */
  event_counts!: Record<string, number>;
  expires_at!: Date;
  /** When the invoice first reached a paid status (null before, and for invoices paid before migration 0004). */
  paid_at!: Date | null;
  /** USD per coin at `paid_at`, as the rates cache selected it; null without a usable quote then. */
  paid_usd_rate!: string | null;
  paid_rate_source!: string | null;
  created_at!: Date;
  updated_at!: Date;

  override $parseDatabaseJson(json: Pojo): Pojo {
    return withUnitsColumns(super.$parseDatabaseJson(json), UNITS_COLUMNS);
  }
}

/** An `invoices_invoices` row read with plain SQL (`select *`) as services see it. */
export function invoiceOfRow(row: object): Invoice {
  return withUnitsColumns(row, UNITS_COLUMNS);
}

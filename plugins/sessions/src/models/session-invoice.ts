import type { CoinId } from '@gw/kernel';
import { Model } from 'objection';

/** How an invoice became a session's: a pick of the payer, or a late payment credited to it. */
export type SessionInvoiceKind = 'pick' | 'late';

/** One invoice of a session (migrations/0001_sessions.ts). */
export class SessionInvoice extends Model {
  static override tableName = 'sessions_invoices';
  static override idColumn = 'invoice_id';
  invoice_id!: string;
  session_id!: string;
  project_id!: string;
  kind!: SessionInvoiceKind;
  seq!: number;
  coin!: CoinId;
  address!: string;
  status!: string;
  amount_crypto!: string;
  late!: boolean;
  created_at!: Date;
}

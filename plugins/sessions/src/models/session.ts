import type { CoinId, ProjectKind } from '@gw/kernel';
import { Model } from 'objection';
import type { LineItem, SessionStatus } from '../contract.js';

/** One checkout session (migrations/0001_sessions.ts). */
export class Session extends Model {
  static override tableName = 'sessions_sessions';
  static override jsonAttributes = ['allowed_coins', 'line_items', 'metadata'];
  id!: string;
  project_id!: string;
  project_kind!: ProjectKind;
  status!: SessionStatus;
  token!: string;
  receipt_token!: string | null;
  price_currency!: string;
  price_amount!: string;
  allowed_coins!: CoinId[];
  description!: string | null;
  line_items!: LineItem[];
  external_id!: string | null;
  customer_email!: string | null;
  return_url!: string | null;
  cancel_url!: string | null;
  metadata!: Record<string, unknown> | null;
  payment_link_id!: string | null;
  invoice_id!: string | null;
  expires_at!: Date;
  completed_at!: Date | null;
  expired_at!: Date | null;
  idempotency_key!: string | null;
  request_digest!: string | null;
  created_by!: string;
  created_at!: Date;
  updated_at!: Date;
}

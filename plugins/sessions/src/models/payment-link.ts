import type { CoinId, ProjectKind } from '@gw/kernel';
import { Model } from 'objection';
import type { LineItem } from '../contract.js';

/** One payment link (migrations/0001_sessions.ts). */
export class PaymentLink extends Model {
  static override tableName = 'sessions_links';
  static override jsonAttributes = ['allowed_coins', 'line_items', 'metadata'];
  id!: string;
  project_id!: string;
  project_kind!: ProjectKind;
  token!: string;
  active!: boolean;
  price_currency!: string;
  price_amount!: string | null;
  min_amount!: string | null;
  max_amount!: string | null;
  allowed_coins!: CoinId[] | null;
  description!: string | null;
  line_items!: LineItem[];
  max_uses!: number | null;
  ask_email!: boolean;
  return_url!: string | null;
  metadata!: Record<string, unknown> | null;
  idempotency_key!: string | null;
  request_digest!: string | null;
  created_by!: string;
  created_at!: Date;
  updated_at!: Date;
  deactivated_at!: Date | null;
}

import type { OutboundEventType, ProjectKind } from '@gw/kernel';
import { Model } from 'objection';
import type { DeliveryStatus } from '../delivery-status.js';

/** One outbound event (invoice, refund, payout or checkout session) and its delivery state (the outbox row). */
export class WebhookEvent extends Model {
  static override tableName = 'webhooks_events';
  id!: string;
  project_id!: string;
  mode!: ProjectKind;
  /** The invoice the event is about (a refund's invoice, a completed checkout session's paying invoice); null for a payout or an expired session. */
  invoice_id!: string | null;
  event_type!: OutboundEventType;
  original_event_id!: string | null;
  body!: string;
  target_url!: string | null;
  status!: DeliveryStatus;
  attempts!: number;
  next_attempt_at!: Date | null;
  last_attempt_at!: Date | null;
  last_http_status!: number | null;
  last_error!: string | null;
  delivered_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
}

import type { ProjectKind } from '@gw/kernel';
import { Model } from 'objection';
import type { DeliveryStatus, LoggedEventType } from '../delivery-status.js';

/**
 * One outbound event (invoice, refund, payout or checkout session, or a protocol delivery of
 * another plugin) and its delivery state (the outbox row).
 */
export class WebhookEvent extends Model {
  static override tableName = 'webhooks_events';
  id!: string;
  project_id!: string;
  mode!: ProjectKind;
  /** The invoice the event is about (a refund's invoice, a completed checkout session's paying invoice); null for a payout or an expired session. */
  invoice_id!: string | null;
  event_type!: LoggedEventType;
  original_event_id!: string | null;
  body!: string;
  target_url!: string | null;
  status!: DeliveryStatus;
  attempts!: number;
  next_attempt_at!: Date | null;
  last_attempt_at!: Date | null;
  last_http_status!: number | null;
  last_error!: string | null;
  /** The last attempt's start, latency and response excerpt (with the `last_*` above and `target_url`: that attempt, kept here alone when it delivered). */
  last_started_at!: Date | null;
  last_latency_ms!: number | null;
  last_response_excerpt!: string | null;
  /** How often a batch's record of this event failed (the backoff of its next try). */
  record_failures!: number;
  delivered_at!: Date | null;
  created_at!: Date;
  updated_at!: Date;
  /** A protocol delivery's signer (`WEBHOOK_SIGNERS` id) and its subscription; null for the gateway's own events. */
  signer!: string | null;
  signer_ref!: string | null;
}

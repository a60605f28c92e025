import { Model } from 'objection';

/** One delivery attempt of an event. */
export class WebhookAttempt extends Model {
  static override tableName = 'webhooks_attempts';
  id!: string;
  event_id!: string;
  attempt!: number;
  target_url!: string;
  started_at!: Date;
  http_status!: number | null;
  latency_ms!: number;
  error!: string | null;
  response_excerpt!: string | null;
}

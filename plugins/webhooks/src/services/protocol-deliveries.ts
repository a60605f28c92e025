import { isAppError, isUlid, newId, type ProjectKind } from '@gw/kernel';
import { validateWebhookUrl } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { WebhooksConfig } from '../config.js';
import type { DeliveryStatus, ProtocolEventType } from '../delivery-status.js';
import { WebhookEvent } from '../models/webhook-event.js';
import type { WebhookOutbox } from './outbox.js';
import { targetRefusal } from './target-guard.js';

/** One protocol delivery to write: an event in another plugin's wire format for one of its subscriptions. */
export interface ProtocolDelivery {
  /** The event's id (a ULID, `newId()`), when the body names it (BTCPay's `deliveryId`); a new one otherwise. An id already written is left as it is. */
  readonly id?: string;
  readonly projectId: string;
  readonly mode: ProjectKind;
  /** The gateway invoice the event is about, if any (the delivery then shows in that invoice's timeline). */
  readonly invoiceId: string | null;
  /** The protocol's own event type (`InvoiceSettled`). */
  readonly eventType: ProtocolEventType;
  /** The exact body every attempt sends. */
  readonly body: string;
  /** The subscription's URL when the event is written (its signer may name a newer one per attempt). */
  readonly targetUrl: string;
  /** The `WEBHOOK_SIGNERS` id that signs it. */
  readonly signer: string;
  /** The signer's subscription (e.g. a BTCPay webhook id). */
  readonly signerRef: string;
}

/** A protocol delivery as its plugin's own API shows it (BTCPay's webhook deliveries). */
export interface ProtocolDeliveryView {
  readonly id: string;
  readonly eventType: ProtocolEventType;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly createdAt: Date;
  readonly lastAttemptAt: Date | null;
  readonly lastHttpStatus: number | null;
  readonly lastError: string | null;
  /** The exact body its attempts send. */
  readonly body: string;
}

/**
 * Protocol deliveries (issue 39): another plugin's webhooks in its own wire format, written into
 * this plugin's outbox and delivered with its retries, dead letters and delivery log, each attempt
 * signed by that plugin's `WEBHOOK_SIGNERS` signer. Exported to other plugins (`webhooksProtocolDeliveries`).
 */
export class ProtocolDeliveries {
  constructor(private readonly deps: { db: Knex; webhooksConfig: WebhooksConfig; webhooksOutbox: WebhookOutbox; allowPrivateTargets: boolean }) {}

  /**
   * Writes `deliveries` with their first delivery jobs in the caller's transaction (they exist
   * exactly when the change they announce commits). Returns the ids written; an id that already
   * exists is skipped (a deterministic delivery written twice).
   */
  async enqueue(trx: Knex.Transaction, deliveries: readonly ProtocolDelivery[]): Promise<string[]> {
    if (deliveries.length === 0) return [];
    const createdAt = new Date();
    const entries = deliveries.map((d) => ({
      id: d.id ?? newId(),
      projectId: d.projectId,
      mode: d.mode,
      invoiceId: d.invoiceId,
      eventType: d.eventType,
      originalEventId: null,
      body: d.body,
      targetUrl: d.targetUrl,
      createdAt,
      signer: { id: d.signer, ref: d.signerRef },
    }));
    const fresh = await this.deps.webhooksOutbox.write(trx, entries);
    return entries.filter((e) => fresh.has(e.id)).map((e) => e.id);
  }

  /**
   * Why `url` cannot be a webhook target of a project of `kind`, or undefined when it can: the
   * rules of the project's own webhook URL (absolute http(s), https for production, no
   * credentials or fragment, at most 2048 characters) and, for an IP literal, the sender's refusal
   * of non-public addresses (a host name is checked when it is resolved, at every attempt).
   */
  targetRefusal(url: string, kind: ProjectKind): string | undefined {
    try {
      validateWebhookUrl(url, kind);
    } catch (error) {
      if (isAppError(error)) return error.message;
      throw error;
    }
    const host = new URL(url).hostname;
    return targetRefusal(host, kind, this.deps.allowPrivateTargets);
  }

  /** The newest `limit` deliveries of one subscription that were attempted at least once, newest first. */
  async list(projectId: string, signer: string, ref: string, limit: number): Promise<ProtocolDeliveryView[]> {
    const rows = await WebhookEvent.query(this.deps.db)
      .where({ project_id: projectId, signer, signer_ref: ref })
      .where('attempts', '>', 0)
      .orderBy('id', 'desc')
      .limit(limit);
    return rows.map(view);
  }

  /** One delivery of the subscription; undefined when it is not one of its deliveries. */
  async get(projectId: string, signer: string, ref: string, id: string): Promise<ProtocolDeliveryView | undefined> {
    if (!isUlid(id)) return undefined;
    const row = await WebhookEvent.query(this.deps.db).findOne({ id, project_id: projectId, signer, signer_ref: ref });
    return row ? view(row) : undefined;
  }
}

function view(row: WebhookEvent): ProtocolDeliveryView {
  return {
    id: row.id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    createdAt: new Date(row.created_at),
    lastAttemptAt: row.last_attempt_at === null ? null : new Date(row.last_attempt_at),
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
    body: row.body,
  };
}

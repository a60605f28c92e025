import { randomBytes } from 'node:crypto';
import { type Actor, type AuditLog, isUlid, newId, type ProjectPrincipal, type SecretBox, sql, sqlQuery } from '@gw/kernel';
import type { ProtocolDeliveries } from '@gw/plugin-webhooks/contract';
import type { Knex } from 'knex';
import { btcpayErrors } from '../errors.js';
import type { WebhookInput } from './webhook-input.js';

/** A webhook as Greenfield answers it (BTCPay's `WebhookData`); the secret only on create. */
export interface GreenfieldWebhook {
  readonly id: string;
  readonly enabled: boolean;
  readonly automaticRedelivery: boolean;
  readonly url: string;
  readonly authorizedEvents: { readonly everything: boolean; readonly specificEvents: readonly string[] };
}

/** What signing a delivery needs of its webhook. */
export interface WebhookForSigning {
  readonly id: string;
  readonly projectId: string;
  readonly url: string;
  readonly enabled: boolean;
  readonly automaticRedelivery: boolean;
  /** Whether it takes events of `type` (`everything`, or listed in `specificEvents`). */
  readonly takes: (type: string) => boolean;
  readonly secret: string;
}

/** An enabled webhook an event may go to. */
export interface Subscriber {
  readonly id: string;
  readonly url: string;
  /** Whether it takes events of `type` (`everything`, or listed in `specificEvents`). */
  readonly takes: (type: string) => boolean;
}

interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  enabled: boolean;
  automatic_redelivery: boolean;
  everything: boolean;
  specific_events: string[];
  sealed_secret: string;
}

/** The secret of a webhook created without one: 16 random bytes, as BTCPay generates them (base64url here). */
function generatedSecret(): string {
  return randomBytes(16).toString('base64url');
}

/** The kernel SecretBox's binding of a webhook's sealed secret to its row. */
export const secretAad = (id: string) => `btcpay_webhooks:${id}`;

/**
 * A store's Greenfield webhooks (`btcpay_webhooks`): create, read, replace, delete, each write
 * audited (target `btcpay_webhook:<id>`, never the secret). The secret is sealed by the kernel's
 * SecretBox and shown once, in the create's answer, as BTCPay does. A URL must be a webhook target
 * of the project (`webhooksProtocolDeliveries.targetRefusal`: the project webhook URL's rules).
 */
export class BtcpayWebhooks {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; secretBox: SecretBox; webhooksProtocolDeliveries: ProtocolDeliveries }) {}

  /** Creates a webhook of `project`; the answer carries its secret (generated when none was given). */
  async create(project: ProjectPrincipal, input: WebhookInput, actor: Actor): Promise<GreenfieldWebhook & { readonly secret: string }> {
    this.checkUrl(project, input.url);
    const id = newId();
    const secret = input.secret ?? generatedSecret();
    const row = await this.deps.db.transaction(async (trx) => {
      const [inserted] = await sqlQuery<WebhookRow>(
        trx,
        sql`insert into btcpay_webhooks (id, project_id, url, enabled, automatic_redelivery, everything, specific_events, sealed_secret)
            values (${id}, ${project.id}, ${input.url}, ${input.enabled}, ${input.automaticRedelivery}, ${input.authorizedEvents.everything},
                    ${JSON.stringify(input.authorizedEvents.specificEvents)}::jsonb, ${this.deps.secretBox.seal(secret, secretAad(id))})
            returning *`,
      );
      await this.audit(trx, actor, 'create', inserted!, { secret_given: input.secret !== null });
      return inserted!;
    });
    return { ...view(row), secret };
  }

  /** The project's webhooks, oldest first. */
  async list(projectId: string): Promise<GreenfieldWebhook[]> {
    const rows = await sqlQuery<WebhookRow>(this.deps.db, sql`select * from btcpay_webhooks where project_id = ${projectId} order by created_at, id`);
    return rows.map(view);
  }

  /** One webhook of the project; 404 `btcpay_webhook_not_found` otherwise. */
  async get(projectId: string, id: string): Promise<GreenfieldWebhook> {
    return view(await this.find(this.deps.db, projectId, id));
  }

  /** The project of a webhook (Greenfield's `/api/v1/webhooks/{webhookId}` routes find the store by it); undefined for an unknown id. */
  async projectOf(id: string): Promise<string | undefined> {
    if (!isUlid(id)) return undefined;
    const [row] = await sqlQuery<{ project_id: string }>(this.deps.db, sql`select project_id from btcpay_webhooks where id = ${id}`);
    return row?.project_id;
  }

  /**
   * Replaces a webhook (BTCPay's PUT: fields left out take their defaults), keeping its secret when
   * none is given. Disabling it, or narrowing its events, ends its pending deliveries of the events
   * it no longer takes (their signer answers that the subscription is gone).
   */
  async update(project: ProjectPrincipal, id: string, input: WebhookInput, actor: Actor): Promise<GreenfieldWebhook> {
    this.checkUrl(project, input.url);
    return this.deps.db.transaction(async (trx) => {
      await this.find(trx, project.id, id, true);
      const sealed = input.secret === null ? null : this.deps.secretBox.seal(input.secret, secretAad(id));
      const [row] = await sqlQuery<WebhookRow>(
        trx,
        sql`update btcpay_webhooks
               set url = ${input.url}, enabled = ${input.enabled}, automatic_redelivery = ${input.automaticRedelivery},
                   everything = ${input.authorizedEvents.everything}, specific_events = ${JSON.stringify(input.authorizedEvents.specificEvents)}::jsonb,
                   sealed_secret = coalesce(${sealed}::text, sealed_secret), updated_at = now()
             where id = ${id} and project_id = ${project.id}
            returning *`,
      );
      await this.audit(trx, actor, 'update', row!, { secret_changed: sealed !== null });
      return view(row!);
    });
  }

  /** Deletes a webhook; its pending deliveries end unsent. 404 `btcpay_webhook_not_found` for one not of the project. */
  async delete(projectId: string, id: string, actor: Actor): Promise<void> {
    await this.deps.db.transaction(async (trx) => {
      const row = await this.find(trx, projectId, id, true);
      await sqlQuery(trx, sql`delete from btcpay_webhooks where id = ${id}`);
      await this.audit(trx, actor, 'delete', row, {});
    });
  }

  /** The project's enabled webhooks, read in `trx` (the events' own transaction), each with the event types it takes. */
  async subscribers(trx: Knex.Transaction, projectId: string): Promise<Subscriber[]> {
    const rows = await sqlQuery<Pick<WebhookRow, 'id' | 'url' | 'everything' | 'specific_events'>>(
      trx,
      sql`select id, url, everything, specific_events from btcpay_webhooks where project_id = ${projectId} and enabled order by created_at, id`,
    );
    return rows.map((row) => ({ id: row.id, url: row.url, takes: takesOf(row) }));
  }

  /** The webhooks `ids` names that still exist, with their secrets opened, for signing deliveries. */
  async forSigning(ids: readonly string[]): Promise<Map<string, WebhookForSigning>> {
    const known = [...new Set(ids)].filter(isUlid);
    if (known.length === 0) return new Map();
    const rows = await sqlQuery<WebhookRow>(this.deps.db, sql`select * from btcpay_webhooks where id = any(${known}::text[])`);
    return new Map(
      rows.map((row) => [
        row.id,
        {
          id: row.id,
          projectId: row.project_id,
          url: row.url,
          enabled: row.enabled,
          automaticRedelivery: row.automatic_redelivery,
          takes: takesOf(row),
          secret: this.deps.secretBox.open(row.sealed_secret, secretAad(row.id)),
        },
      ]),
    );
  }

  /** Deletes every webhook of the project (a sandbox project's reset or deletion), in `trx`. */
  async purgeProject(trx: Knex.Transaction, projectId: string): Promise<number> {
    const deleted = await sqlQuery<{ id: string }>(trx, sql`delete from btcpay_webhooks where project_id = ${projectId} returning id`);
    return deleted.length;
  }

  /** 422 `btcpay_validation_failed` (path `url`) when the URL cannot be a webhook target of the project. */
  private checkUrl(project: ProjectPrincipal, url: string): void {
    const refusal = this.deps.webhooksProtocolDeliveries.targetRefusal(url, project.kind);
    if (refusal) throw btcpayErrors.btcpay_validation_failed({ message: refusal, details: { errors: [{ path: 'url', message: `Invalid Url: ${refusal}` }] } });
  }

  private async find(db: Knex | Knex.Transaction, projectId: string, id: string, lock = false): Promise<WebhookRow> {
    if (!isUlid(id)) throw btcpayErrors.btcpay_webhook_not_found();
    const [row] = await sqlQuery<WebhookRow>(
      db,
      sql`select * from btcpay_webhooks where id = ${id} and project_id = ${projectId} ${lock ? sql`for update` : sql``}`,
    );
    if (!row) throw btcpayErrors.btcpay_webhook_not_found();
    return row;
  }

  private async audit(trx: Knex.Transaction, actor: Actor, action: string, row: WebhookRow, extra: Record<string, unknown>): Promise<void> {
    await this.deps.audit.record(
      {
        ...actor,
        action: `btcpay_webhook.${action}`,
        projectId: row.project_id,
        target: `btcpay_webhook:${row.id}`,
        details: {
          url: row.url,
          enabled: row.enabled,
          automatic_redelivery: row.automatic_redelivery,
          everything: row.everything,
          specific_events: row.specific_events,
          ...extra,
        },
      },
      trx,
    );
  }
}

/** Whether the webhook takes events of a type: `everything`, or the type listed in `specific_events`. */
function takesOf(row: Pick<WebhookRow, 'everything' | 'specific_events'>): (type: string) => boolean {
  return (type: string) => row.everything || row.specific_events.includes(type);
}

function view(row: WebhookRow): GreenfieldWebhook {
  return {
    id: row.id,
    enabled: row.enabled,
    automaticRedelivery: row.automatic_redelivery,
    url: row.url,
    authorizedEvents: { everything: row.everything, specificEvents: row.specific_events },
  };
}

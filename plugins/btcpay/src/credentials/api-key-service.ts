import { randomBytes } from 'node:crypto';
import {
  type Actor,
  type AuditLog,
  hashToken,
  newId,
  type ProjectPrincipal,
  sql,
  sqlQuery,
  type UserAccessScope,
  isoTime,
  isoTimeOrNull,
  pick,
} from '@gw/kernel';
import type { Knex } from 'knex';
import type { BtcpayPrincipal } from '../contract.js';
import { btcpayErrors } from '../errors.js';
import { parsePermission, permissionText } from './permissions.js';

/** A Greenfield API key as the dashboard and the CLI show it: never the key itself. */
export interface BtcpayApiKeyView {
  readonly id: string;
  readonly operator_id: string;
  /** The user who approved it (BTCPay's `userId`). */
  readonly user_id: string;
  readonly label: string;
  /** The `applicationIdentifier` of the authorization request that made it, if any. */
  readonly application_identifier: string | null;
  /** The key's last four characters, so a person can tell keys apart. */
  readonly token_hint: string;
  /** BTCPay permission strings as granted (store-bound ones end in `:<project id>`). */
  readonly permissions: readonly string[];
  readonly created_at_iso: string;
  /** When it last authenticated a call (recorded at most once a minute). */
  readonly last_used_at_iso: string | null;
  readonly revoked_at_iso: string | null;
  /** The actor who revoked it. */
  readonly revoked_by: string | null;
}

/** What creating a key needs. */
export interface CreateBtcpayApiKeyInput {
  readonly operatorId: string;
  /** The user approving it (they belong to `operatorId`). */
  readonly userId: string;
  readonly label: string;
  /** BTCPay permission strings; a store-bound one must name a project of `operatorId`. */
  readonly permissions: readonly string[];
  readonly applicationIdentifier?: string | null;
}

/** The project lookup the service needs to check store-bound permissions (the tenancy plugin's). */
export interface ProjectLookup {
  principal(projectId: string): Promise<ProjectPrincipal | undefined>;
}

interface KeyRow {
  id: string;
  operator_id: string;
  user_id: string;
  label: string;
  application_identifier: string | null;
  token_hint: string;
  permissions: string[];
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
  revoked_by: string | null;
}

/** Who revokes the keys of a disabled user. */
const SYSTEM: Actor = { actor: 'system', channel: 'system' };
/** How long a recorded `last_used_at` stands before a call records a new one. */
const LAST_USED_RESOLUTION = '1 minute';
/** The longest label kept (BTCPay's labels are free text; the dashboard shows them on one line). */
const MAX_LABEL_LENGTH = 200;
const MAX_IDENTIFIER_LENGTH = 200;

/**
 * Greenfield API keys (`Authorization: token <key>`), each tied to one operator and the user who
 * approved it. The key is 40 hex characters like BTCPay's own and is returned once, at creation;
 * only its SHA-256 is stored. Every write is audited with the key as target (`btcpay_key:<id>`).
 */
export class BtcpayApiKeys {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyProjects: ProjectLookup }) {}

  /**
   * Creates a key and returns it with the key itself (shown once). Permissions are normalised
   * (policy lower case, each once); an unknown permission, a store-bound one naming no project of
   * the operator, or none at all is 422 `btcpay_validation_failed` (path `permissions`).
   */
  async create(input: CreateBtcpayApiKeyInput, actor: Actor, trx?: Knex.Transaction): Promise<{ key: BtcpayApiKeyView; token: string }> {
    const permissions = await this.checkPermissions(input.operatorId, input.permissions);
    const label = input.label.trim().slice(0, MAX_LABEL_LENGTH);
    const applicationIdentifier = input.applicationIdentifier?.trim().slice(0, MAX_IDENTIFIER_LENGTH) || null;
    const token = randomBytes(20).toString('hex');
    const id = newId();
    const run = async (tx: Knex.Transaction) => {
      const [row] = await sqlQuery<KeyRow>(
        tx,
        sql`insert into btcpay_api_keys (id, operator_id, user_id, label, application_identifier, token_hash, token_hint, permissions)
            values (${id}, ${input.operatorId}, ${input.userId}, ${label}, ${applicationIdentifier}, ${hashToken(token)}, ${token.slice(-4)},
                    ${JSON.stringify(permissions)}::jsonb)
            returning *`,
      );
      await this.deps.audit.record(
        {
          ...actor,
          action: 'btcpay_key.create',
          projectId: singleStore(permissions),
          target: `btcpay_key:${id}`,
          details: { operator_id: input.operatorId, user_id: input.userId, label, application_identifier: applicationIdentifier, permissions },
        },
        tx,
      );
      return { key: toView(row!), token };
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
  }

  /**
   * The principal of a presented key, or undefined when it is unknown or revoked. Records
   * `last_used_at` in the same statement, at most once a minute per key, so a busy shop does not
   * turn every call into a write.
   */
  async authenticate(token: string): Promise<BtcpayPrincipal | undefined> {
    const [row] = await sqlQuery<Pick<KeyRow, 'id' | 'operator_id' | 'user_id' | 'label' | 'permissions'>>(
      this.deps.db,
      sql`with found as (
            select id, operator_id, user_id, label, permissions from btcpay_api_keys
             where token_hash = ${hashToken(token)} and revoked_at is null),
          touched as (
            update btcpay_api_keys k set last_used_at = now()
              from found
             where k.id = found.id
               and (k.last_used_at is null or k.last_used_at < now() - ${LAST_USED_RESOLUTION}::interval))
          select * from found`,
    );
    if (!row) return undefined;
    return { keyId: row.id, operatorId: row.operator_id, userId: row.user_id, label: row.label, permissions: row.permissions };
  }

  /** One key of the operator (revoked ones included); 404 `btcpay_api_key_not_found` for another operator's. */
  async get(id: string, operatorId: string): Promise<BtcpayApiKeyView> {
    const [row] = await sqlQuery<KeyRow>(this.deps.db, sql`select * from btcpay_api_keys where id = ${id} and operator_id = ${operatorId}`);
    if (!row) throw btcpayErrors.btcpay_api_key_not_found();
    return toView(row);
  }

  /** The operator's keys, newest first, `limit` after the cursor (a key id), revoked ones included. */
  async list(operatorId: string, page: { after?: string; limit: number } = { limit: 100 }): Promise<BtcpayApiKeyView[]> {
    const rows = await sqlQuery<KeyRow>(
      this.deps.db,
      sql`select * from btcpay_api_keys
           where operator_id = ${operatorId} ${page.after ? sql`and id < ${page.after}` : sql``}
           order by id desc
           limit ${page.limit}`,
    );
    return rows.map(toView);
  }

  /**
   * Revokes one of the operator's keys (the dashboard, the CLI with `--operator`); revoking a
   * revoked key changes nothing but is audited again. 404 `btcpay_api_key_not_found` for a key of
   * another operator, so one operator cannot learn of another's keys.
   */
  async revoke(id: string, actor: Actor, scope: { operatorId?: string } = {}): Promise<BtcpayApiKeyView> {
    return this.deps.db.transaction(async (trx) => {
      const [row] = await sqlQuery<KeyRow>(trx, sql`select * from btcpay_api_keys where id = ${id} for update`);
      if (!row || (scope.operatorId !== undefined && row.operator_id !== scope.operatorId)) throw btcpayErrors.btcpay_api_key_not_found();
      const [updated] = row.revoked_at
        ? [row]
        : await sqlQuery<KeyRow>(trx, sql`update btcpay_api_keys set revoked_at = now(), revoked_by = ${actor.actor} where id = ${id} returning *`);
      await this.deps.audit.record(
        { ...actor, action: 'btcpay_key.revoke', projectId: singleStore(row.permissions), target: `btcpay_key:${id}`, details: { label: row.label } },
        trx,
      );
      return toView(updated!);
    });
  }

  /** Revokes the key that authenticated the call (`DELETE /api/v1/api-keys/current`). */
  async revokeCurrent(principal: BtcpayPrincipal, actor: Actor): Promise<BtcpayApiKeyView> {
    return this.revoke(principal.keyId, actor, { operatorId: principal.operatorId });
  }

  /**
   * Revokes every key a disabled user approved (their access ends with them, as a PAT's does),
   * within the caller's transaction; a session end leaves keys alone. Each key revoked is audited
   * on its own, as every other revocation is (`btcpay_key.revoke`, actor `system`, reason
   * `user_disabled`; the user's own `user.disable` row names who disabled them), in the same
   * transaction. Returns how many ended.
   */
  async endForUser(userId: string, scope: UserAccessScope, trx: Knex.Transaction): Promise<number> {
    if (scope !== 'everything') return 0;
    const rows = await sqlQuery<Pick<KeyRow, 'id' | 'label' | 'permissions'>>(
      trx,
      sql`update btcpay_api_keys set revoked_at = now(), revoked_by = ${SYSTEM.actor} where user_id = ${userId} and revoked_at is null
          returning id, label, permissions`,
    );
    await this.deps.audit.recordMany(
      rows.map((row) => ({
        ...SYSTEM,
        action: 'btcpay_key.revoke',
        projectId: singleStore(row.permissions),
        target: `btcpay_key:${row.id}`,
        details: { label: row.label, reason: 'user_disabled', user_id: userId },
      })),
      trx,
    );
    return rows.length;
  }

  /** `permissions` checked and normalised, or 422 naming the first that is not acceptable. */
  private async checkPermissions(operatorId: string, given: readonly string[]): Promise<string[]> {
    if (given.length === 0) throw invalidPermissions('At least one permission is required.');
    const normalised: string[] = [];
    for (const text of given) {
      const permission = parsePermission(text);
      if (!permission) throw invalidPermissions(`"${text.slice(0, 120)}" is not a BTCPay permission.`);
      if (permission.storeId !== null) {
        const project = await this.deps.tenancyProjects.principal(permission.storeId);
        if (!project || project.operatorId !== operatorId)
          throw invalidPermissions(`"${text.slice(0, 120)}" names a store that is not one of this operator's projects.`);
      }
      normalised.push(permissionText(permission));
    }
    return [...new Set(normalised)];
  }
}

function invalidPermissions(message: string) {
  return btcpayErrors.btcpay_validation_failed({ message, details: { field: 'permissions' } });
}

/** The one project a key is bound to, for the audit row's project (null for keys of several or all). */
function singleStore(permissions: readonly string[]): string | null {
  const stores = new Set(permissions.map((text) => parsePermission(text)?.storeId ?? null));
  const [only] = stores;
  return stores.size === 1 && only !== undefined ? only : null;
}

function toView(row: KeyRow): BtcpayApiKeyView {
  return {
    ...pick(row, ['id', 'operator_id', 'user_id', 'label', 'application_identifier', 'token_hint', 'permissions']),
    created_at_iso: isoTime(row.created_at),
    last_used_at_iso: isoTimeOrNull(row.last_used_at),
    revoked_at_iso: isoTimeOrNull(row.revoked_at),
    revoked_by: row.revoked_by,
  };
}

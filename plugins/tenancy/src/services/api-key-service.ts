import { randomBytes } from 'node:crypto';
import { type Actor, type AuditLog, isoTime, isoTimeOrNull, newId, type ProjectKind, type ProjectPrincipal, type SecretBox, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import { tenancyErrors } from '../errors.js';
import { requestLookupSql, type AnswerKey } from './request-lookup-sql.js';
import { ApiKey } from '../models/api-key.js';
import { ApiKeySecret } from '../models/api-key-secret.js';
import { Project } from '../models/project.js';

export const SANDBOX_SECRET_PREFIX = 'sk_sandbox_';

/** A freshly minted secret: returned once, never retrievable again. */
export interface IssuedSecret {
  project_id: string;
  api_key_id: string;
  secret_kind: 'production' | 'sandbox';
  /** The API secret. Shown once. */
  api_secret: string;
  state: ApiKey['state'];
  /** When a rotated-out secret stops working (rotation only). */
  previous_secret_expires_at_iso?: string;
}

export interface ApiKeyView {
  api_key_id: string;
  project_id: string;
  secret_kind: 'production' | 'sandbox';
  state: ApiKey['state'];
  created_at_iso: string;
  live_secrets: number;
}

/** What the signed-request check needs of a project: its current key, that key's valid secrets, the project. */
export interface RequestCredentials {
  readonly key: Pick<ApiKey, 'id' | 'state' | 'secret_kind'>;
  readonly secrets: string[];
  readonly project: ProjectPrincipal;
}

/** A row of `tenancy_signed_answers` as the request lookup returns it; `status` null while pending. */
export interface StoredAnswer {
  readonly status: number | null;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/** What `requestCredentialsMany` found for one project id. */
export interface RequestLookup {
  /** Absent for an unknown project or one without a key; an Error when its secret cannot be opened. */
  readonly credentials?: RequestCredentials | Error;
  /** Recorded answers by request hash, of the keys asked for in this project. */
  readonly answers: ReadonlyMap<string, StoredAnswer>;
}

/**
 * API keys: one live key per project (requests name the project in `X-Project-Id`), whose secrets
 * are stored encrypted (AES-256-GCM, aad = secret id). Rotation adds a secret and keeps the previous
 * one valid for the configured overlap, so partners switch without downtime.
 */
export class ApiKeyService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; secretBox: SecretBox; kernelConfig: { security: { keyRotationOverlapSeconds: number } } }) {}

  /** Mints a secret of the right form: 64 hex (production, testnet) or `sk_sandbox_` + 48 hex. */
  static mintSecret(kind: 'production' | 'sandbox'): string {
    return kind === 'sandbox' ? `${SANDBOX_SECRET_PREFIX}${randomBytes(24).toString('hex')}` : randomBytes(32).toString('hex');
  }

  /** Issues the project's key. Refused while a live (active or suspended) key exists. */
  async issue(projectId: string, actor: Actor, trx?: Knex.Transaction): Promise<IssuedSecret> {
    const run = async (tx: Knex.Transaction) => {
      const project = await Project.query(tx).findById(projectId).forUpdate();
      if (!project) throw tenancyErrors.project_not_found({ message: `No project "${projectId}".` });
      const live = await ApiKey.query(tx).where({ project_id: projectId }).whereNot('state', 'revoked').first();
      if (live) throw tenancyErrors.api_key_exists();
      const secretKind = project.kind === 'sandbox' ? 'sandbox' : 'production';
      const key = await ApiKey.query(tx).insertAndFetch({ id: newId(), project_id: projectId, secret_kind: secretKind, state: 'active' });
      const secret = await this.addSecret(tx, key.id, secretKind);
      await this.deps.audit.record({ ...actor, action: 'key.issue', projectId, target: `api_key:${key.id}` }, tx);
      return { project_id: projectId, api_key_id: key.id, secret_kind: secretKind, api_secret: secret, state: key.state } satisfies IssuedSecret;
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
  }

  /**
   * New secret. The previous current secret stays valid for the overlap and older ones end now;
   * with `immediate` (a leaked secret) every previous secret ends now, for requests and webhook
   * signing alike.
   */
  async rotate(projectId: string, actor: Actor, options: { immediate?: boolean } = {}): Promise<IssuedSecret> {
    const immediate = options.immediate === true;
    return this.deps.db.transaction(async (trx) => {
      const key = await this.liveKey(trx, projectId, true);
      if (key.state !== 'active') throw tenancyErrors.api_key_state_conflict({ message: `The key is ${key.state}; only an active key can be rotated.` });
      // The database's clock decides validity (the checks compare with now()), so it sets the ends too.
      const { rows } = await trx.raw<{ rows: { now: Date; overlap_ends: Date }[] }>(`select now() as now, now() + make_interval(secs => ?) as overlap_ends`, [
        immediate ? 0 : this.deps.kernelConfig.security.keyRotationOverlapSeconds,
      ]);
      const { now, overlap_ends: overlapEnds } = rows[0]!;
      await ApiKeySecret.query(trx).where({ api_key_id: key.id }).whereNotNull('expires_at').where('expires_at', '>', now).patch({ expires_at: now });
      await ApiKeySecret.query(trx).where({ api_key_id: key.id }).whereNull('expires_at').patch({ expires_at: overlapEnds });
      const secret = await this.addSecret(trx, key.id, key.secret_kind);
      await this.deps.audit.record(
        { ...actor, action: 'key.rotate', projectId, target: `api_key:${key.id}`, details: { previous_valid_until: overlapEnds.toISOString(), immediate } },
        trx,
      );
      return {
        project_id: projectId,
        api_key_id: key.id,
        secret_kind: key.secret_kind,
        api_secret: secret,
        state: key.state,
        previous_secret_expires_at_iso: overlapEnds.toISOString(),
      };
    });
  }

  async revoke(projectId: string, actor: Actor): Promise<ApiKeyView> {
    return this.changeState(projectId, 'revoked', ['active', 'suspended'], 'key.revoke', actor);
  }

  async suspend(projectId: string, actor: Actor): Promise<ApiKeyView> {
    return this.changeState(projectId, 'suspended', ['active'], 'key.suspend', actor);
  }

  async resume(projectId: string, actor: Actor): Promise<ApiKeyView> {
    return this.changeState(projectId, 'active', ['suspended'], 'key.resume', actor);
  }

  /** The key requests of `projectId` are checked against: the live key, else the newest revoked one. */
  async keyForRequests(projectId: string): Promise<{ key: ApiKey; secrets: string[] } | undefined> {
    const key = await ApiKey.query(this.deps.db).where({ project_id: projectId }).orderByRaw(`(state <> 'revoked') desc, id desc`).first();
    if (!key) return undefined;
    return { key, secrets: await this.validSecrets(this.deps.db, key.id) };
  }

  /**
   * Everything the signed-request check needs for several projects, in one statement (concurrent
   * requests of different projects share it): the key requests are checked against (as
   * `keyForRequests`), its valid secrets, and the project principal. Projects without a key, or
   * unknown, have no `credentials`; a project whose secret cannot be opened has that error alone,
   * so the other projects of the statement are served. The same statement fetches the answers
   * recorded under `answerKeys` (`tenancy_signed_answers`, SignedAnswerStore), deleted projects
   * included: a copy of a signed request is answered without a statement of its own.
   */
  async requestCredentialsMany(projectIds: readonly string[], answerKeys: readonly AnswerKey[] = []): Promise<Map<string, RequestLookup>> {
    if (projectIds.length === 0) return new Map();
    const rows = await sqlQuery<{
      project_id: string;
      key_id: string | null;
      key_state: ApiKey['state'];
      secret_kind: ApiKey['secret_kind'];
      kind: ProjectKind;
      status: 'active' | 'suspended' | null;
      operator_id: string;
      subscription_status: string;
      secrets: { id: string; sealed: string }[];
      answers: { hash: string; status: number | null; headers: Record<string, string> | null; body: string | null }[];
    }>(this.deps.db, requestLookupSql(projectIds, answerKeys));
    const result = new Map<string, RequestLookup>();
    for (const row of rows) {
      const answers = new Map(row.answers.map((a) => [a.hash, { status: a.status, headers: a.headers ?? {}, body: Buffer.from(a.body ?? '', 'base64') }]));
      if (row.key_id === null || row.status === null) {
        result.set(row.project_id, { answers });
        continue;
      }
      let secrets: string[];
      try {
        secrets = row.secrets.map((secret) => this.deps.secretBox.open(secret.sealed, secret.id));
      } catch (error) {
        result.set(row.project_id, { credentials: error instanceof Error ? error : new Error(String(error)), answers });
        continue;
      }
      result.set(row.project_id, {
        credentials: {
          key: { id: row.key_id, state: row.key_state, secret_kind: row.secret_kind },
          secrets,
          project: {
            id: row.project_id,
            kind: row.kind,
            status: row.status,
            operatorId: row.operator_id,
            subscriptionActive: row.subscription_status === 'active',
          },
        },
        answers,
      });
    }
    return result;
  }

  /** Secrets currently valid for the project's live key (webhook signing signs with each). */
  async liveSecrets(projectId: string): Promise<string[]> {
    const key = await ApiKey.query(this.deps.db).where({ project_id: projectId, state: 'active' }).first();
    return key ? this.validSecrets(this.deps.db, key.id) : [];
  }

  /** `liveSecrets` of several projects in one query; a project without a live key maps to []. */
  async liveSecretsMany(projectIds: readonly string[]): Promise<Map<string, string[]>> {
    const result = new Map<string, string[]>(projectIds.map((id) => [id, []]));
    if (projectIds.length === 0) return result;
    const rows = await this.deps.db.raw<{ rows: { project_id: string; id: string; sealed_secret: string }[] }>(
      `select k.project_id, s.id, s.sealed_secret
         from tenancy_api_keys k
         join tenancy_api_key_secrets s on s.api_key_id = k.id and (s.expires_at is null or s.expires_at > now())
        where k.project_id = any(?::text[]) and k.state = 'active'
        order by k.project_id, s.id desc`,
      [[...new Set(projectIds)]],
    );
    for (const row of rows.rows) result.get(row.project_id)?.push(this.deps.secretBox.open(row.sealed_secret, row.id));
    return result;
  }

  /**
   * The secrets of the project's live key that still work, newest first, with when each stops
   * (null: until rotated), never the secrets themselves: the dashboard shows a rotation's overlap.
   */
  async secretLifetimes(projectId: string): Promise<{ id: string; created_at_iso: string; expires_at_iso: string | null }[]> {
    const db = this.deps.db;
    const rows = await ApiKeySecret.query(db)
      .join('tenancy_api_keys as k', 'k.id', 'tenancy_api_key_secrets.api_key_id')
      .where('k.project_id', projectId)
      .whereNot('k.state', 'revoked')
      .where((q) => q.whereNull('tenancy_api_key_secrets.expires_at').orWhere('tenancy_api_key_secrets.expires_at', '>', db.fn.now()))
      .orderBy('tenancy_api_key_secrets.id', 'desc')
      .limit(20)
      .select('tenancy_api_key_secrets.id', 'tenancy_api_key_secrets.created_at', 'tenancy_api_key_secrets.expires_at');
    return rows.map((r) => ({
      id: r.id,
      created_at_iso: isoTime(r.created_at),
      expires_at_iso: isoTimeOrNull(r.expires_at),
    }));
  }

  async view(projectId: string): Promise<ApiKeyView | undefined> {
    const found = await this.keyForRequests(projectId);
    return found ? this.toView(found.key, found.secrets.length) : undefined;
  }

  private async validSecrets(db: Knex | Knex.Transaction, keyId: string): Promise<string[]> {
    const rows = await ApiKeySecret.query(db)
      .where({ api_key_id: keyId })
      .where((q) => q.whereNull('expires_at').orWhere('expires_at', '>', db.fn.now()))
      .orderBy('id', 'desc');
    return rows.map((row) => this.deps.secretBox.open(row.sealed_secret, row.id));
  }

  private async addSecret(trx: Knex.Transaction, keyId: string, kind: 'production' | 'sandbox'): Promise<string> {
    const secret = ApiKeyService.mintSecret(kind);
    const id = newId();
    await ApiKeySecret.query(trx).insert({ id, api_key_id: keyId, sealed_secret: this.deps.secretBox.seal(secret, id), expires_at: null });
    return secret;
  }

  private async liveKey(trx: Knex.Transaction, projectId: string, lock: boolean): Promise<ApiKey> {
    const project = await Project.query(trx).findById(projectId);
    if (!project) throw tenancyErrors.project_not_found({ message: `No project "${projectId}".` });
    const query = ApiKey.query(trx).where({ project_id: projectId }).whereNot('state', 'revoked');
    const key = await (lock ? query.forUpdate() : query).first();
    if (!key) throw tenancyErrors.api_key_not_found();
    return key;
  }

  private async changeState(projectId: string, to: ApiKey['state'], from: ApiKey['state'][], action: string, actor: Actor): Promise<ApiKeyView> {
    return this.deps.db.transaction(async (trx) => {
      const key = await this.liveKey(trx, projectId, true);
      if (!from.includes(key.state)) throw tenancyErrors.api_key_state_conflict({ message: `The key is ${key.state}; cannot ${action.split('.')[1]} it.` });
      const updated = await ApiKey.query(trx).patchAndFetchById(key.id, { state: to, state_changed_at: new Date() });
      await this.deps.audit.record({ ...actor, action, projectId, target: `api_key:${key.id}` }, trx);
      return this.toView(updated, (await this.validSecrets(trx, key.id)).length);
    });
  }

  private toView(key: ApiKey, liveSecrets: number): ApiKeyView {
    return {
      api_key_id: key.id,
      project_id: key.project_id,
      secret_kind: key.secret_kind,
      state: key.state,
      created_at_iso: new Date(key.created_at).toISOString(),
      live_secrets: liveSecrets,
    };
  }
}

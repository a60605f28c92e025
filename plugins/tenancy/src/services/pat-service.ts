import { type Actor, type AuditLog, hashToken, newId, randomBase62, sql, sqlQuery, isoTime, isoTimeOrNull, pick } from '@gw/kernel';
import type { Knex } from 'knex';
import { tenancyErrors } from '../errors.js';
import { PersonalAccessToken } from '../models/personal-access-token.js';
import { Project } from '../models/project.js';
import { isPatScope, type PatScope } from '../scopes.js';
import type { OperatorService } from './operator-service.js';

/** Wire format: `svc_pat_` + 32 base62 characters (docs/decisions.md). */
export const PAT_PREFIX = 'svc_pat_';
const PAT_PATTERN = /^svc_pat_[0-9A-Za-z]{32}$/;

export interface PatView {
  id: string;
  name: string;
  operator_id: string;
  project_id: string | null;
  scopes: string[];
  created_at_iso: string;
  revoked_at_iso: string | null;
}

/** A verified PAT: who it is and what it may do. */
export interface PatPrincipal {
  id: string;
  operatorId: string;
  projectId: string | null;
  scopes: PatScope[];
}

/**
 * Personal access tokens (spec 5.3). Sent as `Authorization: Bearer svc_pat_...`. Only the SHA-256
 * of the token is stored; the token is shown once at creation.
 */
export class PatService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyOperators: OperatorService }) {}

  async create(
    input: { scopes: string[]; project?: string; operator?: string; name?: string; userId?: string },
    actor: Actor,
    trx?: Knex.Transaction,
  ): Promise<PatView & { token: string }> {
    if (input.scopes.length === 0) throw tenancyErrors.invalid_scope({ message: 'At least one scope is required.' });
    for (const scope of input.scopes) {
      if (!isPatScope(scope)) throw tenancyErrors.invalid_scope({ message: `Unknown scope "${scope}".`, details: { scope } });
    }
    const run = async (tx: Knex.Transaction) => {
      let operatorId: string;
      let projectId: string | null = null;
      if (input.project) {
        const project = await Project.query(tx).findById(input.project);
        if (!project) throw tenancyErrors.project_not_found({ message: `No project "${input.project}".` });
        operatorId = project.operator_id;
        projectId = project.id;
      } else {
        operatorId = (await this.deps.tenancyOperators.resolveForNewProject(input.operator, tx, actor)).id;
      }
      const token = `${PAT_PREFIX}${randomBase62(32)}`;
      const row = await PersonalAccessToken.query(tx).insertAndFetch({
        id: newId(),
        operator_id: operatorId,
        project_id: projectId,
        // The creating user (dashboard): disabling them revokes the token (issue 33 item 12).
        user_id: input.userId ?? null,
        name: input.name ?? 'cli',
        scopes: [...new Set(input.scopes)],
        token_hash: hashToken(token),
      });
      await this.deps.audit.record({ ...actor, action: 'pat.create', projectId, target: `pat:${row.id}`, details: { scopes: row.scopes } }, tx);
      return { ...this.toView(row), token };
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
  }

  /** Revokes a token; `operatorId` confines it to one operator's tokens (the dashboard), others are not found. */
  async revoke(id: string, actor: Actor, options: { operatorId?: string } = {}): Promise<PatView> {
    return this.deps.db.transaction(async (trx) => {
      const row = await PersonalAccessToken.query(trx).findById(id).forUpdate();
      if (!row || (options.operatorId !== undefined && row.operator_id !== options.operatorId)) throw tenancyErrors.pat_not_found();
      const updated = row.revoked_at ? row : await PersonalAccessToken.query(trx).patchAndFetchById(id, { revoked_at: new Date() });
      await this.deps.audit.record({ ...actor, action: 'pat.revoke', projectId: row.project_id, target: `pat:${id}` }, trx);
      return this.toView(updated);
    });
  }

  async list(filter: { project?: string } = {}): Promise<PatView[]> {
    const query = PersonalAccessToken.query(this.deps.db).orderBy('id');
    if (filter.project) query.where('project_id', filter.project);
    return (await query).map((row) => this.toView(row));
  }

  /** One operator's tokens (never their secrets) in id order, `limit` after the cursor (a token id). */
  async listForOperator(operatorId: string, page: { after?: string; limit: number }): Promise<PatView[]> {
    const query = PersonalAccessToken.query(this.deps.db).where('operator_id', operatorId).orderBy('id').limit(page.limit);
    if (page.after) query.where('id', '>', page.after);
    return (await query).map((row) => this.toView(row));
  }

  /** Verifies a presented token; undefined when unknown, malformed, revoked or expired. */
  async verify(token: string): Promise<PatPrincipal | undefined> {
    if (!PAT_PATTERN.test(token)) return undefined;
    // Expiry is decided by the database's clock, like every other expiry (issue 24).
    const [row] = await sqlQuery<Pick<PersonalAccessToken, 'id' | 'operator_id' | 'project_id' | 'scopes' | 'revoked_at'> & { expired: boolean }>(
      this.deps.db,
      sql`select id, operator_id, project_id, scopes, revoked_at, coalesce(expires_at <= now(), false) as expired
            from tenancy_personal_access_tokens where token_hash = ${hashToken(token)}`,
    );
    if (!row || row.revoked_at || row.expired) return undefined;
    return { id: row.id, operatorId: row.operator_id, projectId: row.project_id, scopes: row.scopes.filter(isPatScope) };
  }

  private toView(row: PersonalAccessToken): PatView {
    return {
      ...pick(row, ['id', 'name', 'operator_id', 'project_id', 'scopes']),
      created_at_iso: isoTime(row.created_at),
      revoked_at_iso: isoTimeOrNull(row.revoked_at),
    };
  }
}

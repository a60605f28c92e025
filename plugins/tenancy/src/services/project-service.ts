import { type Actor, type AuditLog, isUniqueViolation, newId, type ProjectKind, type ProjectPrincipal, sql, sqlQuery } from '@gw/kernel';
import type { Knex } from 'knex';
import { tenancyErrors } from '../errors.js';
import { Operator } from '../models/operator.js';
import { Project } from '../models/project.js';
import type { ApiKeyService, IssuedSecret } from './api-key-service.js';
import type { OperatorService } from './operator-service.js';
import { validateWebhookUrl } from './webhook-url.js';

export interface ProjectView {
  id: string;
  operator_id: string;
  name: string;
  kind: ProjectKind;
  status: 'active' | 'suspended';
  webhook_url: string | null;
  created_at_iso: string;
}

export function projectView(project: Project): ProjectView {
  return {
    id: project.id,
    operator_id: project.operator_id,
    name: project.name,
    kind: project.kind,
    status: project.status,
    webhook_url: project.webhook_url,
    created_at_iso: new Date(project.created_at).toISOString(),
  };
}

/** Projects: kind fixed at creation, suspension, default webhook URL. */
export class ProjectService {
  constructor(private readonly deps: { db: Knex; audit: AuditLog; tenancyOperators: OperatorService; tenancyApiKeys: ApiKeyService }) {}

  /** Creates the project and its API key in one transaction; the secret is returned once. */
  async create(
    input: { name: string; kind: ProjectKind; operator?: string },
    actor: Actor,
    trx?: Knex.Transaction,
  ): Promise<{ project: ProjectView; credentials: IssuedSecret }> {
    const run = async (tx: Knex.Transaction) => {
      const operator = await this.deps.tenancyOperators.resolveForNewProject(input.operator, tx, actor);
      const clash = await Project.query(tx).findOne({ operator_id: operator.id, name: input.name });
      if (clash) throw tenancyErrors.project_exists();
      const project = await Project.query(tx)
        .insertAndFetch({ id: newId(), operator_id: operator.id, name: input.name, kind: input.kind, status: 'active', webhook_url: null })
        .catch((error: unknown) => {
          // A concurrent create of the same name got past the check first.
          throw isUniqueViolation(error, 'name') ? tenancyErrors.project_exists() : error;
        });
      await this.deps.audit.record(
        { ...actor, action: 'project.create', projectId: project.id, target: `project:${project.id}`, details: { kind: input.kind, name: input.name } },
        tx,
      );
      const credentials = await this.deps.tenancyApiKeys.issue(project.id, actor, tx);
      return { project: projectView(project), credentials };
    };
    return trx ? run(trx) : this.deps.db.transaction(run);
  }

  async list(filter: { operator?: string; kind?: ProjectKind } = {}): Promise<ProjectView[]> {
    const query = Project.query(this.deps.db).orderBy('id');
    if (filter.operator) query.where('operator_id', (await this.deps.tenancyOperators.find(filter.operator)).id);
    if (filter.kind) query.where('kind', filter.kind);
    return (await query).map(projectView);
  }

  /** One operator's projects in id order, `limit` after the cursor (a project id): the dashboard's lists. */
  async listForOperator(operatorId: string, page: { after?: string; limit: number }): Promise<ProjectView[]> {
    const query = Project.query(this.deps.db).where('operator_id', operatorId).orderBy('id').limit(page.limit);
    if (page.after) query.where('id', '>', page.after);
    return (await query).map(projectView);
  }

  /** Whether any project exists (the first start of a fresh install has none). */
  async any(db: Knex | Knex.Transaction = this.deps.db): Promise<boolean> {
    return (await Project.query(db).select('id').first()) !== undefined;
  }

  async get(projectId: string, db: Knex | Knex.Transaction = this.deps.db): Promise<ProjectView> {
    const project = await Project.query(db).findById(projectId);
    if (!project) throw tenancyErrors.project_not_found({ message: `No project "${projectId}".` });
    return projectView(project);
  }

  /**
   * Deletes the project and, through the foreign keys' cascades, every row of every plugin that
   * belongs to it (keys, secrets, PATs, wallets, pool, invoices, events). Irreversible. The audit
   * record outlives it (the audit log has no foreign key to projects).
   */
  async delete(projectId: string, actor: Actor, trx?: Knex.Transaction): Promise<void> {
    const run = async (tx: Knex.Transaction) => {
      const project = await Project.query(tx).findById(projectId).forUpdate();
      if (!project) throw tenancyErrors.project_not_found({ message: `No project "${projectId}".` });
      await Project.query(tx).deleteById(projectId);
      await this.deps.audit.record(
        { ...actor, action: 'project.delete', projectId, target: `project:${projectId}`, details: { kind: project.kind, name: project.name } },
        tx,
      );
    };
    await (trx ? run(trx) : this.deps.db.transaction(run));
  }

  /**
   * The default webhook URL of each project (null when unset or the project is unknown). One
   * statement, queued behind any the caller has not awaited yet in the same transaction (sqlQuery),
   * so a caller may start it and build other rows meanwhile.
   */
  async webhookUrls(projectIds: readonly string[], db: Knex | Knex.Transaction = this.deps.db): Promise<Map<string, string | null>> {
    const result = new Map<string, string | null>(projectIds.map((id) => [id, null]));
    if (projectIds.length === 0) return result;
    const rows = await sqlQuery<{ id: string; webhook_url: string | null }>(
      db,
      sql`select id, webhook_url from tenancy_projects where id = any(${[...new Set(projectIds)]}::text[])`,
    );
    for (const row of rows) result.set(row.id, row.webhook_url);
    return result;
  }

  /** The kind of each known project (unknown ids are absent). One query. */
  async kinds(projectIds: readonly string[], db: Knex | Knex.Transaction = this.deps.db): Promise<Map<string, ProjectKind>> {
    if (projectIds.length === 0) return new Map();
    const rows = await Project.query(db)
      .whereIn('id', [...new Set(projectIds)])
      .select('id', 'kind');
    return new Map(rows.map((row) => [row.id, row.kind]));
  }

  /** The guard-facing view of a project, or undefined. One query. */
  async principal(projectId: string): Promise<ProjectPrincipal | undefined> {
    const row = await Project.query(this.deps.db)
      .join(Operator.tableName, `${Operator.tableName}.id`, `${Project.tableName}.operator_id`)
      .where(`${Project.tableName}.id`, projectId)
      .select(
        `${Project.tableName}.id`,
        `${Project.tableName}.kind`,
        `${Project.tableName}.status`,
        `${Project.tableName}.operator_id`,
        `${Operator.tableName}.subscription_status`,
      )
      .first()
      .castTo<{ id: string; kind: ProjectKind; status: 'active' | 'suspended'; operator_id: string; subscription_status: string }>();
    if (!row) return undefined;
    return { id: row.id, kind: row.kind, status: row.status, operatorId: row.operator_id, subscriptionActive: row.subscription_status === 'active' };
  }

  async suspend(projectId: string, actor: Actor): Promise<ProjectView> {
    return this.setStatus(projectId, 'suspended', actor);
  }

  async resume(projectId: string, actor: Actor): Promise<ProjectView> {
    return this.setStatus(projectId, 'active', actor);
  }

  /** Sets (or with null clears) the default webhook URL used when an invoice has no callback_url. */
  async setWebhookUrl(projectId: string, url: string | null, actor: Actor): Promise<ProjectView> {
    return this.deps.db.transaction(async (trx) => {
      const project = await Project.query(trx).findById(projectId).forUpdate();
      if (!project) throw tenancyErrors.project_not_found({ message: `No project "${projectId}".` });
      const normalised = url === null ? null : validateWebhookUrl(url, project.kind);
      const updated = await Project.query(trx).patchAndFetchById(projectId, { webhook_url: normalised, updated_at: new Date() });
      await this.deps.audit.record(
        { ...actor, action: 'project.webhook_url.set', projectId, target: `project:${projectId}`, details: { url: normalised } },
        trx,
      );
      return projectView(updated);
    });
  }

  private async setStatus(projectId: string, status: 'active' | 'suspended', actor: Actor): Promise<ProjectView> {
    return this.deps.db.transaction(async (trx) => {
      const project = await Project.query(trx).findById(projectId).forUpdate();
      if (!project) throw tenancyErrors.project_not_found({ message: `No project "${projectId}".` });
      const updated = await Project.query(trx).patchAndFetchById(projectId, { status, updated_at: new Date() });
      await this.deps.audit.record(
        { ...actor, action: status === 'suspended' ? 'project.suspend' : 'project.resume', projectId, target: `project:${projectId}` },
        trx,
      );
      return projectView(updated);
    });
  }
}

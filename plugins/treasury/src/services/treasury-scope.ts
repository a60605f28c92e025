import type { ProjectService } from '@gw/plugin-tenancy/contract';
import { treasuryErrors } from '../errors.js';

/**
 * Whose money a caller reaches: the CLI reaches every project (no scope); an operator's token
 * reaches that operator's projects; a token bound to a project reaches that project only.
 */
export interface TreasuryScope {
  readonly operatorId?: string;
  readonly projectId?: string;
}

/** The projects a scope reaches; null for all. */
export async function scopeProjects(projects: ProjectService, scope: TreasuryScope): Promise<ReadonlySet<string> | null> {
  if (scope.projectId) return new Set([scope.projectId]);
  if (scope.operatorId) return new Set((await projects.list({ operator: scope.operatorId })).map((p) => p.id));
  return null;
}

/** Refuses a project outside the scope as not found (no enumeration). */
export function requireInScope(reach: ReadonlySet<string> | null, projectId: string): void {
  if (reach && !reach.has(projectId)) throw treasuryErrors.treasury_output_unknown({ message: 'No such output in the projects this credential reaches.' });
}

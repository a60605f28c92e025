import { coreErrors } from '../errors/core-errors.js';
import type { AuthContext, Authenticator } from './authenticator.js';
import type { RouteAccess } from './route.js';

/**
 * Enforces a route's declared access after authentication. Order (spec 5.1): the cross-mode check
 * for routes naming a project in the path, then the project-kind guard, then the subscription
 * guard on writes of non-sandbox projects.
 */
export async function enforceAccess(
  access: RouteAccess | undefined,
  auth: AuthContext,
  params: Record<string, string>,
  authenticator: Authenticator,
): Promise<void> {
  if (!access) return;
  const project = auth.project;
  if (!project) {
    if (access.projectKind || access.projectParam || access.write)
      throw coreErrors.permission_denied({ message: 'This credential is not bound to a project.' });
    return;
  }
  if (access.projectParam) {
    const targetId = params[access.projectParam];
    if (targetId !== project.id) {
      const target = targetId && authenticator.findProject ? await authenticator.findProject(targetId) : undefined;
      const keyIsSandbox = auth.secretKind === 'sandbox' || project.kind === 'sandbox';
      if (target && keyIsSandbox && target.kind !== 'sandbox') throw coreErrors.sandbox_key_against_production_project();
      if (target && !keyIsSandbox && target.kind === 'sandbox') throw coreErrors.production_key_against_sandbox_project();
      throw coreErrors.permission_denied({ message: 'The path names a project this credential does not belong to.' });
    }
  }
  if (access.crossModeByKey && access.projectKind === 'sandbox' && project.kind !== 'sandbox') throw coreErrors.production_key_against_sandbox_project();
  if (access.projectKind === 'production' && project.kind === 'sandbox') throw coreErrors.production_project_required();
  if (access.projectKind === 'sandbox' && project.kind !== 'sandbox') throw coreErrors.sandbox_project_required();
  if (access.write && project.kind !== 'sandbox' && !project.subscriptionActive) throw coreErrors.subscription_expired();
}

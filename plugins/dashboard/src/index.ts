import { definePlugin, service, serviceValue, withDeps } from '@gw/kernel';
import { DASHBOARD_EXPORTS } from './contract.js';
import { m0001Dashboard } from '../migrations/0001_dashboard.js';
import { m0002FormUses } from '../migrations/0002_form_uses.js';
import { m0003SignInReturn } from '../migrations/0003_sign_in_return.js';
import { DashboardConfigSchema } from './config.js';
import { dashboardErrors } from './errors.js';
import { dashboardJobs } from './jobs.js';
import { dashboardReadiness } from './readiness.js';
import { FRAME_PAGES } from './pages/index.js';
import { dashboardErrorFormat, dashboardRoutes } from './routes.js';
import { SessionService } from './services/session-service.js';

/**
 * The operator dashboard (issue 20): server-rendered pages under /dashboard for invited users of
 * an operator, signed in by e-mailed code (the OAuth plugin's sign-in), with sessions, CSRF
 * checks and roles, writing through the same services as REST, MCP and the CLI. See
 * plugins/dashboard/README.md and docs/adr/0008-dashboard-rendering.md.
 */
export const dashboardPlugin = definePlugin({
  id: 'dashboard',
  dependsOn: [...new Set(['tenancy', 'oauth', ...FRAME_PAGES.flatMap((p) => p.dependsOn ?? [])])],
  exports: DASHBOARD_EXPORTS,
  config: DashboardConfigSchema,
  errors: [dashboardErrors],
  migrations: [m0001Dashboard, m0002FormUses, m0003SignInReturn],
  register: ({ config }) => ({
    dashboardConfig: serviceValue(config),
    dashboardSessions: service(['db', 'dashboardConfig'], (deps) => new SessionService(deps)),
  }),
  routes: dashboardRoutes,
  errorFormats: withDeps([], () => [dashboardErrorFormat]),
  jobs: dashboardJobs,
  // Disabling a user or ending their sessions signs every browser of theirs out (issue 33 item 12).
  userAccessEnders: withDeps(['dashboardSessions'], ({ dashboardSessions }) => [
    { name: 'dashboard_sessions', end: (userId, _scope, trx) => dashboardSessions.signOutEverywhere(userId, trx) },
  ]),
  readiness: dashboardReadiness,
});

export * from './contract.js';
export { DashboardConfigSchema, type DashboardConfig } from './config.js';
export { dashboardErrors } from './errors.js';
export { SessionService, DASHBOARD_COOKIE, type DashboardSession } from './services/session-service.js';

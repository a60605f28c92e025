import type { DashboardPage } from '../web/dashboard-page.js';
import { accountPage } from './account-page.js';
import { apiKeysPage } from './api-keys-page.js';
import { operatorPage } from './operator-page.js';
import { patsPage } from './pats-page.js';
import { usersPage } from './users-page.js';
import { projectsPage } from './projects-page.js';
import { auditPage } from './audit-page.js';
import { doctorPage } from './doctor-page.js';
import { mcpToolsPage } from './mcp-tools-page.js';
import { overviewPage } from './overview-page.js';

/** Where `/dashboard` (and a signed-in sign-in page) leads. */
export const DASHBOARD_HOME = '/dashboard/projects';

/**
 * The frame's own pages: those on the frame's services (users, projects, keys, the account, audit,
 * doctor). A feature plugin's page lives in that plugin and is contributed with `dashboardPages`
 * (ADR 0011, README: "How to add a page").
 */
export const FRAME_PAGES: readonly DashboardPage[] = [
  projectsPage,
  apiKeysPage,
  patsPage,
  usersPage,
  operatorPage,
  accountPage(DASHBOARD_HOME),
  overviewPage,
  auditPage,
  mcpToolsPage,
  doctorPage,
];

/** Scripts beyond the shared `dashboard.js` that pages need (files in `assets/`), loaded on every page. */
export const DASHBOARD_EXTRA_SCRIPTS: readonly string[] = ['wallet-sign.js'];

/**
 * CLI commands the dashboard deliberately does not offer, with why. The CLI parity test fails for
 * a CLI command that is neither here, nor pending, nor declared by a route's `cli`.
 */
export const CLI_ONLY_COMMANDS: Readonly<Record<string, string>> = {
  'db migrate': 'schema changes run at start-up and by the operator of the machine',
  'db status': 'schema state is for the operator of the machine',
  'master-key reseal': 'needs the previous master keys in the process environment',
  'operator create': "operators are the gateway owner's, above every operator's users",
  'subscription set': "the subscription is the gateway owner's, not the operator's own",
  'mcp stdio': 'a transport for a local agent, not an action',
  'treasury reconcile': "reconciliation covers every operator's addresses: the deployment's, not one operator's (the hourly job runs it)",
};

/** CLI commands whose dashboard pages are not built yet. Each entry goes away when a route declares it in `cli`. */
export const CLI_PENDING_COMMANDS: readonly string[] = [];

import type { DashboardPage } from '../web/dashboard-page.js';
import { accountPage } from './account-page.js';
import { apiKeysPage } from './api-keys-page.js';
import { operatorPage } from './operator-page.js';
import { patsPage } from './pats-page.js';
import { usersPage } from './users-page.js';
import { projectsPage } from './projects-page.js';
import { webhookUrlPage } from './webhook-url-page.js';

/** Where `/dashboard` (and a signed-in sign-in page) leads. */
export const DASHBOARD_HOME = '/dashboard/projects';

/**
 * Every page of the dashboard: the one registration list. A new page is a module under
 * `src/pages/` exporting a `definePage({...})`, added here (README: "How to add a page").
 */
export const DASHBOARD_PAGES: readonly DashboardPage[] = [
  projectsPage,
  apiKeysPage,
  webhookUrlPage,
  patsPage,
  usersPage,
  operatorPage,
  accountPage(DASHBOARD_HOME),
];

/** Scripts beyond the shared `dashboard.js` that pages need (files in `assets/`), loaded on every page. */
export const DASHBOARD_EXTRA_SCRIPTS: readonly string[] = [];

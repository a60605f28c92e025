import type { DashboardPage } from '../web/dashboard-page.js';
import { accountPage } from './account-page.js';
import { projectsPage } from './projects-page.js';
import { auditPage } from './audit-page.js';
import { invoicesPage } from './invoices-page.js';
import { orphansPage } from './orphans-page.js';
import { overviewPage } from './overview-page.js';
import { policyPage } from './policy-page.js';
import { walletsPage } from './wallets-page.js';
import { webhooksPage } from './webhooks-page.js';

/** Where `/dashboard` (and a signed-in sign-in page) leads. */
export const DASHBOARD_HOME = '/dashboard/projects';

/**
 * Every page of the dashboard: the one registration list. A new page is a module under
 * `src/pages/` exporting a `definePage({...})`, added here (README: "How to add a page").
 */
export const DASHBOARD_PAGES: readonly DashboardPage[] = [
  projectsPage,
  accountPage(DASHBOARD_HOME),
  overviewPage,
  invoicesPage,
  orphansPage,
  walletsPage,
  webhooksPage,
  policyPage,
  auditPage,
];

/** Scripts beyond the shared `dashboard.js` that pages need (files in `assets/`), loaded on every page. */
export const DASHBOARD_EXTRA_SCRIPTS: readonly string[] = ['wallet-sign.js'];

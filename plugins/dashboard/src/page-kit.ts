/**
 * What a plugin needs to contribute dashboard pages (ADR 0011), part of `@gw/plugin-dashboard/contract`: the
 * extension point, the page contract, and the frame's helpers (tables, badges, forms, filters,
 * charts, the dashboard's form errors). Importing it adds nothing to the importer's `dependsOn`:
 * a contributed page is mounted when the dashboard is enabled and ignored otherwise.
 */
export { DASHBOARD_PAGES, dashboardPages, type ContributedPage, type PageServices } from './web/page-point.js';
export { PAGE_SECTIONS, pageSections, type ContributedSection, type PageSection, type SectionPage } from './web/section-point.js';
export { type Bar } from './web/bar-chart.js';
export {
  definePage,
  navHref,
  navRoutePath,
  page,
  redirect,
  type DashboardAction,
  type DashboardActionRequest,
  type DashboardPage,
  type DashboardRequest,
  type DashboardResponse,
  type DashboardRoute,
  type DashboardView,
  type NavEntry,
  type NavPageDefinition,
  type PageAction,
  type PageResponse,
  type PageView,
  type SignedInUser,
} from './web/dashboard-page.js';
export * from './web/components.js';
export * from './web/filters.js';
export { FormFields } from './web/form.js';
export { barChart } from './web/bar-chart.js';
export { credentialFacts, PROJECT_NAME_MAX } from './web/project-facts.js';
export { secretsPage, type ShownSecret } from './web/secrets-page.js';
export { dashboardErrors } from './errors.js';
export { safeReturnPath, signInReturningTo } from './sign-in/return-path.js';

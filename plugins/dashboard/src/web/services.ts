import type { Deps } from '@gw/kernel';

/**
 * Every service the dashboard's routes read (ADR 0009): the kernel hands the routes a view of the
 * container with these alone, so a page reaching for anything else fails at start-up, and the list
 * says at a glance which plugins' contracts the dashboard uses.
 */
export const DASHBOARD_SERVICES = [
  'audit',
  'chains',
  'dashboardConfig',
  'dashboardSessions',
  'extensions',
  'invoicesActivity',
  'invoicesExporter',
  'invoicesService',
  'kernelConfig',
  'logger',
  'mcpTools',
  'oauthSignIn',
  'oauthTokens',
  'rateLimiter',
  'readiness',
  'sandboxInvoices',
  'sandboxSimulator',
  'tenancyApiKeys',
  'tenancyOperators',
  'tenancyPats',
  'tenancyProjects',
  'tenancyUsers',
  'webhooksEventLog',
] as const;

/** What a dashboard page, action or sign-in route may read. */
export type DashboardServices = Deps<(typeof DASHBOARD_SERVICES)[number]>;

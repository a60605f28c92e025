import type { Deps } from '@gw/kernel';

/**
 * Every service the frame's routes and its own pages read (ADR 0009): the kernel hands the routes a
 * view of the container with these alone, so a page reaching for anything else fails at start-up.
 * A page another plugin contributes reads what that plugin declared for it instead (ADR 0011).
 */
export const DASHBOARD_SERVICES = [
  'audit',
  'dashboardConfig',
  'dashboardSessions',
  'extensions',
  'kernelConfig',
  'logger',
  'mcpTools',
  'oauthSignIn',
  'oauthTokens',
  'rateLimiter',
  'readiness',
  'tenancyApiKeys',
  'tenancyOperators',
  'tenancyPats',
  'tenancyProjects',
  'tenancyUsers',
] as const;

/** What a dashboard page, action or sign-in route may read. */
export type DashboardServices = Deps<(typeof DASHBOARD_SERVICES)[number]>;

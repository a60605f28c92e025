/**
 * The contract of the dashboard plugin (the operator's web UI): the services it registers and what
 * other plugins may import from it (`@gw/plugin-dashboard/contract`), nothing else (ADR 0009).
 */
import type { ServiceName } from '@gw/kernel';
import type { DashboardConfig } from './config.js';
import type { SessionService } from './services/session-service.js';

declare module '@gw/kernel' {
  interface Cradle {
    readonly dashboardConfig: DashboardConfig;
    /** Dashboard browser sessions: find, sign in, sign out (everywhere), CSRF tokens. */
    readonly dashboardSessions: SessionService;
  }
}

/**
 * The services other plugins may declare (ADR 0009); the plugin's other services are its own and
 * start-up refuses another plugin's declaration of one.
 */
export const DASHBOARD_EXPORTS: readonly ServiceName[] = [];

export { DASHBOARD_COOKIE, type DashboardSession } from './services/session-service.js';

/** The dashboard's extension point and page contract, for plugins that contribute pages (ADR 0011). */
export * from './page-kit.js';

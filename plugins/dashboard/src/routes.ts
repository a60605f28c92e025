import { DASHBOARD_SERVICES } from './web/services.js';
import { fileURLToPath } from 'node:url';
import { rootRedirect, staticAssets, withDeps, withRetryAfter, type ErrorFormat, type RouteDefinition, type StaticAsset } from '@gw/kernel';
import { DASHBOARD_EXTRA_SCRIPTS, FRAME_PAGES } from './pages/index.js';
import { DASHBOARD_PAGES } from './web/page-point.js';
import { signInRoutes } from './sign-in/sign-in-routes.js';
import { layout } from './web/layout.js';
import { errorBody, htmlResult, mountPages, titleOf } from './web/mount.js';

const asset = (name: string, type: string): StaticAsset => ({ name, type, file: fileURLToPath(new URL(`../assets/${name}`, import.meta.url)) });

/** The dashboard's own stylesheet and scripts, served by the gateway with content hashes (no CDN). */
export const DASHBOARD_ASSETS = staticAssets('/dashboard/assets', [
  asset('dashboard.css', 'text/css; charset=utf-8'),
  asset('dashboard.js', 'text/javascript; charset=utf-8'),
  ...DASHBOARD_EXTRA_SCRIPTS.map((name) => asset(name, 'text/javascript; charset=utf-8')),
]);
const SCRIPTS = ['dashboard.js', ...DASHBOARD_EXTRA_SCRIPTS];

/**
 * `/` leads a browser to the dashboard: someone who opens the gateway's address expects a page, not
 * the API's JSON 404 (issue 33 finding 7). Without this plugin the kernel sends `/` to the API reference.
 */
export const ROOT_REDIRECT = rootRedirect('/dashboard');

/** Every route of the dashboard: `/`, assets, sign-in, the frame's pages and those other plugins contribute. */
export const dashboardRoutes = withDeps(DASHBOARD_SERVICES, (services): RouteDefinition[] => [
  ROOT_REDIRECT,
  ...DASHBOARD_ASSETS.routes,
  ...signInRoutes(services, DASHBOARD_ASSETS, SCRIPTS),
  ...mountPages(
    services,
    [...FRAME_PAGES.map((page) => ({ page, services })), ...services.extensions.of(DASHBOARD_PAGES).map((c) => c.item)],
    DASHBOARD_ASSETS,
    SCRIPTS,
  ),
]);

/**
 * Every error under /dashboard that no page rendered itself (the kernel's 404, 405, 413, a refused
 * CSRF token on the sign-in pages, 5xx) as an HTML page, never the REST envelope.
 */
export const dashboardErrorFormat: ErrorFormat = {
  pathPrefix: '/dashboard',
  render: ({ error, requestId }) => {
    const result = htmlResult(layout(titleOf(error), errorBody(error, requestId), { assets: DASHBOARD_ASSETS, scripts: SCRIPTS }), error.status);
    return error.retryAfter === undefined ? result : withRetryAfter(result, Math.max(1, Math.ceil(error.retryAfter)));
  },
};

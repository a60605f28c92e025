import type { DashboardServices } from './services.js';
import Type from 'typebox';
import {
  coreErrors,
  isAppError,
  isUlid,
  pageHeaders,
  type AppError,
  type RouteDefinition,
  type RouteResult,
  type SafeHtml,
  type StaticAssets,
  html,
} from '@gw/kernel';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import { dashboardErrors } from '../errors.js';
import { DASHBOARD_COOKIE, type DashboardSession } from '../services/session-service.js';
import type { DashboardAction, DashboardActionRequest, DashboardRequest, DashboardResponse, DashboardRoute, NavEntry, SignedInUser } from './dashboard-page.js';
import type { ContributedPage } from './page-point.js';
import { ONCE_FIELD, ONCE_NONCE } from './components.js';
import { FormFields } from './form.js';
import { layout, type LayoutContext } from './layout.js';
import { formActionSource, sameOrigin, secureCookie } from './request-checks.js';

/**
 * What every route of the dashboard declares to the kernel: out of the API document, and no API
 * authentication (the dashboard's session, checked by the frame, is).
 */
export const DASHBOARD_ROUTE = { tags: ['dashboard'], hidden: true, auth: 'none' } as const satisfies Partial<RouteDefinition>;

/** Any body is read by hand (forms), so the route schema admits anything. */
export const FORM_BODY = Type.Unknown({ description: 'application/x-www-form-urlencoded' });
/** How many of the operator's projects the header's switcher lists. */
export const SWITCHER_LIMIT = 100;
export const SIGN_IN_PATH = '/dashboard/sign-in';

/**
 * Renders a page response as a whole document with the dashboard's headers: the kernel's page
 * policy, with the referrer kept same-origin so form posts carry their real `Origin`, and forms
 * posting only here unless the page names other origins (`formAction`).
 */
export function htmlResult(document: string, status = 200, setCookie?: string, formAction?: readonly string[]): RouteResult {
  return {
    status,
    headers: {
      ...pageHeaders({ referrerPolicy: 'same-origin', ...(formAction ? { formAction } : {}) }),
      ...(setCookie ? { 'Set-Cookie': setCookie } : {}),
    },
    body: document,
  };
}

/** A 303 See Other (the answer to every successful form POST). */
export function seeOther(location: string, setCookie?: string): RouteResult {
  return { status: 303, headers: { Location: location, 'Cache-Control': 'no-store', ...(setCookie ? { 'Set-Cookie': setCookie } : {}) }, body: '' };
}

/** The signed-in user of a live session, or undefined (no user, or a disabled or deleted one). */
async function signedInUser(services: DashboardServices, session: DashboardSession): Promise<SignedInUser | undefined> {
  if (!session.row.user_id) return undefined;
  const user = await services.tenancyUsers.find(session.row.user_id);
  if (!user || user.status === 'disabled') return undefined;
  return { id: user.id, email: user.email, role: user.role, operatorId: user.operator_id };
}

/**
 * Turns the frame's pages and those other plugins contribute (each with the services it declared)
 * into kernel routes. Every route: the session (none, expired or not
 * signed in → 303 to the sign-in page, nothing done), for POST the Origin and CSRF checks and the
 * role, the `:projectId` scoping (another operator's project is 404), then the handler. Errors a
 * person can act on (4xx) render inside the layout; the rest go to the error format.
 */
export function mountPages(
  services: DashboardServices,
  pages: readonly ContributedPage[],
  assets: StaticAssets,
  scripts: readonly string[],
): RouteDefinition[] {
  const nav: NavEntry[] = pages.flatMap(({ page }) => page.nav ?? []);
  const routes: RouteDefinition[] = [];
  const seen = new Set<string>();
  for (const { page: dashboardPage, services: pageServices } of pages) {
    for (const route of dashboardPage.routes(pageServices) as readonly DashboardRoute<unknown>[]) {
      const key = `${route.method} ${route.path}`;
      if (!route.path.startsWith('/dashboard')) throw new Error(`dashboard page ${dashboardPage.id}: ${key} is not under /dashboard`);
      if (seen.has(key)) throw new Error(`dashboard page ${dashboardPage.id}: ${key} is declared twice`);
      seen.add(key);
      routes.push(mount(services, pageServices, route, nav, assets, scripts));
    }
  }
  return routes;
}

function mount(
  services: DashboardServices,
  pageServices: unknown,
  route: DashboardRoute<unknown>,
  nav: readonly NavEntry[],
  assets: StaticAssets,
  scripts: readonly string[],
): RouteDefinition {
  const { dashboardSessions: sessions } = services;
  return {
    method: route.method,
    path: route.path,
    summary: route.summary,
    ...DASHBOARD_ROUTE,
    ...(route.method === 'POST' ? { body: FORM_BODY } : {}),
    handler: async ({ ctx, params, requestId }) => {
      const session = await sessions.find(ctx.cookies.get(DASHBOARD_COOKIE));
      const user = session ? await signedInUser(services, session) : undefined;
      if (!session || !user) return seeOther(SIGN_IN_PATH, session ? undefined : sessions.clearCookie(secureCookie(ctx)));
      const csrf = sessions.csrfToken(session);
      const base: Omit<DashboardRequest<unknown>, 'project'> = {
        ctx,
        services: pageServices,
        requestId,
        user,
        session,
        csrf,
        params: params as Record<string, string>,
        query: new URLSearchParams(ctx.querystring),
        actor: { actor: `user:${user.id}`, channel: 'dashboard', requestId },
      };
      let project: ProjectView | undefined;
      const render = async (title: string, body: SafeHtml, status: number, formAction?: readonly string[]): Promise<RouteResult> => {
        const projects = await services.tenancyProjects.listForOperator(user.operatorId, { limit: SWITCHER_LIMIT });
        const c: LayoutContext = { assets, scripts, user, csrf, nav, projects, project, currentPath: ctx.path, notice: await sessions.takeFlash(session) };
        return htmlResult(layout(title, body, c), status, undefined, formAction);
      };
      try {
        let form: FormFields | undefined;
        if (route.method === 'POST') {
          if (!sameOrigin(ctx, services.kernelConfig.http.baseUrl)) throw dashboardErrors.csrf_invalid();
          form = FormFields.of(ctx);
          if (!sessions.checkCsrf(session, form.raw('_csrf'))) throw dashboardErrors.csrf_invalid();
          if ((route.role ?? 'admin') === 'admin' && user.role !== 'admin') throw dashboardErrors.role_forbidden();
        } else if (route.role === 'admin' && user.role !== 'admin') throw dashboardErrors.role_forbidden();
        // Every `:…Id` of a dashboard path names a row by its ULID: anything else (a NUL, a path
        // fragment) names nothing and is 404 before any service sees it.
        for (const [name, value] of Object.entries(params as Record<string, string>)) {
          if (name.endsWith('Id') && !isUlid(value)) throw coreErrors.not_found({ message: 'There is nothing with that id here.' });
        }
        project = await scopedProject(services, user, (params as Record<string, string>)['projectId']);
        const req: DashboardRequest<unknown> = { ...base, project };
        const response: DashboardResponse = route.method === 'POST' ? await act(services, route, { ...req, form: form! }) : await route.render(req);
        if (response.kind === 'redirect') {
          if (response.notice) await sessions.setFlash(session, response.notice);
          return seeOther(response.location);
        }
        if (response.kind === 'download') {
          return {
            status: 200,
            headers: {
              'Content-Type': response.contentType,
              'Content-Disposition': `attachment; filename="${response.filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`,
              'Cache-Control': 'no-store',
              'X-Content-Type-Options': 'nosniff',
            },
            body: response.body,
          };
        }
        return render(response.title, response.body, response.status ?? 200, response.formAction?.map(formActionSource));
      } catch (thrown) {
        if (!isAppError(thrown) || thrown.status >= 500) throw thrown;
        return render(titleOf(thrown), errorBody(thrown, requestId), thrown.status);
      }
    },
  };
}

/** Runs an action; a single-use one only for a form nonce the session has not sent before. */
async function act(services: DashboardServices, route: DashboardAction<unknown>, req: DashboardActionRequest<unknown>): Promise<DashboardResponse> {
  if (!route.once) return route.handle(req);
  const nonce = req.form.raw(ONCE_FIELD);
  if (nonce === undefined || !ONCE_NONCE.test(nonce))
    throw dashboardErrors.invalid_form({ message: 'This form is out of date. Nothing was changed; open the page again.' });
  const sessions = services.dashboardSessions;
  if (!(await sessions.useForm(req.session, nonce))) throw dashboardErrors.form_already_sent();
  try {
    return await route.handle(req);
  } catch (error) {
    // The action's own error is the answer; a failure to give the nonce back only keeps this form spent.
    await sessions
      .releaseForm(req.session, nonce)
      .catch((releaseError: unknown) =>
        services.logger.warn({ err: releaseError, requestId: req.requestId }, 'dashboard: a single-use form nonce was not released'),
      );
    throw error;
  }
}

/** The project named in the path, when it belongs to the user's operator; anything else is 404. */
async function scopedProject(services: DashboardServices, user: SignedInUser, projectId: string | undefined): Promise<ProjectView | undefined> {
  if (projectId === undefined) return undefined;
  const notFound = () => coreErrors.not_found({ message: 'There is no project with that id among your projects.' });
  const project = await services.tenancyProjects.get(projectId).catch((error: unknown) => {
    if (isAppError(error) && error.status === 404) throw notFound();
    throw error;
  });
  if (project.operator_id !== user.operatorId) throw notFound();
  return project;
}

/** The heading of an error page. */
export function titleOf(error: AppError): string {
  if (error.status === 404) return 'Not found';
  if (error.status === 403) return 'Not allowed';
  if (error.status === 429) return 'Too many requests';
  return 'Could not do that';
}

/** The content of an error page: what happened, in the catalogue's words, and the request id. */
export function errorBody(error: AppError, requestId: string) {
  return html`<h1>${titleOf(error)}</h1>
<div class="error" role="alert"><p>${error.message}</p><p class="note">Error code <code>${error.code}</code>, request <code>${requestId}</code>.</p></div>
<p><a href="/dashboard">Back to the dashboard</a></p>`;
}

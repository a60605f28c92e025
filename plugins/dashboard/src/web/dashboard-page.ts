import type { DashboardServices } from './services.js';
import type { Context } from 'koa';
import type { ProjectKind, SafeHtml } from '@gw/kernel';
import type { Actor } from '@gw/kernel';
import type { ProjectView, UserRole } from '@gw/plugin-tenancy/contract';
import type { DashboardSession } from '../services/session-service.js';
import type { FormFields } from './form.js';

/** The signed-in person, as every page and action sees them. */
export interface SignedInUser {
  readonly id: string;
  readonly email: string;
  readonly role: UserRole;
  readonly operatorId: string;
}

/**
 * What a dashboard view or action receives. `S` is what its page declared: a page another plugin
 * contributes reads that plugin's services only (ADR 0011).
 */
export interface DashboardRequest<S = DashboardServices> {
  readonly ctx: Context;
  readonly services: S;
  readonly requestId: string;
  readonly user: SignedInUser;
  readonly session: DashboardSession;
  /** The CSRF token every form of the page carries (`csrfField(req)` renders it). */
  readonly csrf: string;
  /** Path parameters, as strings. */
  readonly params: Readonly<Record<string, string>>;
  /** The query string (repeated keys kept). */
  readonly query: URLSearchParams;
  /**
   * The project of a path with `:projectId`, already checked to belong to the user's operator
   * (another operator's or an unknown id is a 404 before the handler runs).
   */
  readonly project: ProjectView | undefined;
  /** The audit actor: `user:<id>` on channel `dashboard`, with the request id. */
  readonly actor: Actor;
}

/** What an action receives: the request plus its form, CSRF and role already checked. */
export interface DashboardActionRequest<S = DashboardServices> extends DashboardRequest<S> {
  readonly form: FormFields;
}

/** A rendered page: its title, the content of `<main>` and the status. */
export interface PageResponse {
  readonly kind: 'page';
  readonly title: string;
  readonly body: SafeHtml;
  readonly status?: number;
  /**
   * Absolute `http(s)` URLs of other sites the page's forms post to (an application's redirect URL
   * receiving what the person approved): their origins join the page's CSP `form-action`, which
   * otherwise allows this site only.
   */
  readonly formAction?: readonly string[];
}

/** A redirect after a successful POST (POST, redirect, GET), with an optional one-time notice. */
export interface RedirectResponse {
  readonly kind: 'redirect';
  readonly location: string;
  readonly notice?: string;
}

/**
 * A file download (an export): streamed as it is read, `no-store`, as an attachment named
 * `filename`. Errors before the first chunk still render as pages; the stream must not fail later.
 */
export interface DownloadResponse {
  readonly kind: 'download';
  readonly filename: string;
  readonly contentType: string;
  readonly body: NodeJS.ReadableStream;
}

export type DashboardResponse = PageResponse | RedirectResponse | DownloadResponse;

/** What every dashboard route (page or action) declares besides its method and handler. */
interface DashboardRouteFacts {
  /** Path under the site, starting with `/dashboard` (e.g. `/dashboard/projects/:projectId/invoices`). */
  readonly path: string;
  /** One line, for the route table and docs. */
  readonly summary: string;
  /** The CLI commands (`noun verb`) this route does in the browser (the CLI parity test checks them). */
  readonly cli?: readonly string[];
}

/** A GET page of the dashboard. */
export interface DashboardView<S = DashboardServices> extends DashboardRouteFacts {
  readonly method: 'GET';
  /** Who may see it (default `member`: every signed-in user). */
  readonly role?: UserRole;
  readonly render: (req: DashboardRequest<S>) => Promise<DashboardResponse>;
}

/**
 * A POST action. Before `handle` runs: the session, the CSRF token (field `_csrf`) and Origin, the
 * role (default `admin`), the form's syntax, and the project's operator are checked; a failure is
 * an error page and nothing is written. Write through the owning plugin's service with `req.actor`
 * so the audit row says channel `dashboard` and the user.
 */
export interface DashboardAction<S = DashboardServices> extends DashboardRouteFacts {
  readonly method: 'POST';
  /** Who may do it (default `admin`); `member` only for actions on one's own session or account. */
  readonly role?: UserRole;
  /**
   * A single-use form: its result shows a secret once, so each rendered form acts at most once.
   * The form must carry `onceField()`; a second send of it (a reload of the result page, a double
   * click) is 409 `form_already_sent` and changes nothing. A send whose action fails with an error
   * page does not count.
   */
  readonly once?: true;
  readonly handle: (req: DashboardActionRequest<S>) => Promise<DashboardResponse>;
}

export type DashboardRoute<S = DashboardServices> = DashboardView<S> | DashboardAction<S>;

/** A navigation link of the header. */
export interface NavEntry {
  readonly label: string;
  /**
   * `project`: a path under the selected project (`/invoices` → `/dashboard/projects/<id>/invoices`),
   * shown when a project is selected; `operator`: an absolute path (`/dashboard/users`).
   */
  readonly scope: 'project' | 'operator';
  readonly path: string;
  /** Position in the header (lower first). */
  readonly order: number;
  /** For `project` links: only for projects of these kinds (default every kind). */
  readonly kinds?: readonly ProjectKind[];
}

/**
 * One feature of the dashboard: its routes and header links. The frame's own pages are listed in
 * `src/pages/index.ts`; other plugins contribute theirs with `dashboardPages` (ADR 0011).
 */
export interface DashboardPage<S = DashboardServices> {
  /** A short id (for tests and errors). */
  readonly id: string;
  /** Frame pages only: plugins whose services the page uses (added to the dashboard plugin's `dependsOn`). */
  readonly dependsOn?: readonly string[];
  readonly nav?: readonly NavEntry[];
  readonly routes: (services: S) => readonly DashboardRoute<S>[];
}

/** A page response. */
export function page(title: string, body: SafeHtml, status?: number): PageResponse {
  return status === undefined ? { kind: 'page', title, body } : { kind: 'page', title, body, status };
}

/** A redirect response (303 See Other), optionally with a one-time notice shown on the next page. */
export function redirect(location: string, notice?: string): RedirectResponse {
  return notice === undefined ? { kind: 'redirect', location } : { kind: 'redirect', location, notice };
}

/** A view declared by its page: the page gives its method and path. */
export type PageView<S = DashboardServices> = Omit<DashboardView<S>, 'method' | 'path'>;
/** An action declared by its page: the page gives its method and path. */
export type PageAction<S = DashboardServices> = Omit<DashboardAction<S>, 'method' | 'path'>;

/**
 * The usual page: its header link and the main view that link leads to, its sub-views and
 * actions at paths below the page's, and any other routes. The main view is a GET at the link's
 * route path (`navRoutePath`) and the page's id is the last segment of the link's path, so neither
 * is written twice. Views and actions read what the page declared in `req.services`.
 */
export interface NavPageDefinition<S = DashboardServices> extends PageView<S> {
  readonly nav: NavEntry;
  /** Frame pages only: plugins whose services the page uses (added to the dashboard plugin's `dependsOn`). */
  readonly dependsOn?: readonly string[];
  /** GET routes by their path below the page's (`'/export'`, `'/:invoiceId'`), matched in this order. */
  readonly views?: Readonly<Record<string, PageView<S>>>;
  /** POST routes by their path below the page's (`''` is the page's own path, `'/clear'` below it). */
  readonly actions?: Readonly<Record<string, PageAction<S>>>;
  /** Routes elsewhere than below the page's path, after the page's own. */
  readonly routes?: (services: S) => readonly DashboardRoute<S>[];
}

/** The route path a header link leads to: a `project` link's path lies under `/dashboard/projects/:projectId`. */
export function navRoutePath(entry: NavEntry): string {
  return entry.scope === 'project' ? `/dashboard/projects/:projectId${entry.path}` : entry.path;
}

/** The address of a header link: a `project` link's for the project `projectId`. */
export function navHref(entry: NavEntry, projectId: string): string {
  return entry.scope === 'project' ? `/dashboard/projects/${projectId}${entry.path}` : entry.path;
}

/** Defines a page module with its types checked: a whole `DashboardPage`, or a page of a header link and its main view. */
export function definePage<S = DashboardServices>(page: DashboardPage<S> | NavPageDefinition<S>): DashboardPage<S> {
  if (!('render' in page)) return page;
  const { nav, dependsOn, views = {}, actions = {}, routes, ...view } = page;
  const path = navRoutePath(nav);
  const own: DashboardRoute<S>[] = [
    { method: 'GET', path, ...view },
    ...Object.entries(views).map(([below, v]): DashboardView<S> => ({ method: 'GET', path: path + below, ...v })),
    ...Object.entries(actions).map(([below, a]): DashboardAction<S> => ({ method: 'POST', path: path + below, ...a })),
  ];
  return {
    id: nav.path.slice(nav.path.lastIndexOf('/') + 1),
    ...(dependsOn === undefined ? {} : { dependsOn }),
    nav: [nav],
    routes: (services) => [...own, ...(routes?.(services) ?? [])],
  };
}

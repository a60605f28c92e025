import { html, type SafeHtml, type StaticAssets } from '@gw/kernel';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import { csrfField } from './components.js';
import { navHref, type NavEntry, type SignedInUser } from './dashboard-page.js';

/** The product name in titles and the header. */
export const PRODUCT = 'Gateway dashboard';

/** What the shared layout needs besides the page's own content. */
export interface LayoutContext {
  readonly assets: StaticAssets;
  /** Scripts of the dashboard (the shared one first), loaded deferred on every page. */
  readonly scripts: readonly string[];
  readonly user?: SignedInUser;
  readonly csrf?: string;
  readonly nav?: readonly NavEntry[];
  /** The operator's projects for the switcher (bounded). */
  readonly projects?: readonly ProjectView[];
  readonly project?: ProjectView | undefined;
  readonly currentPath?: string;
  readonly notice?: string | undefined;
}

/** A whole HTML document: skip link, header with navigation and project switcher, main, footer. */
export function layout(title: string, body: SafeHtml, c: LayoutContext): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · ${PRODUCT}</title>
<link rel="stylesheet" href="${c.assets.url('dashboard.css')}">
${c.scripts.map((s) => html`<script src="${c.assets.url(s)}" defer></script>`)}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="site-header">
<div class="bar">
<a class="brand" href="/dashboard">${PRODUCT}</a>
${c.user ? account(c.user, c.csrf ?? '') : null}
</div>
${c.user ? navigation(c) : null}
</header>
<main id="main" tabindex="-1">
${c.notice ? html`<p class="notice" role="status">${c.notice}</p>` : null}
${body}
</main>
<footer class="site-footer"><p>Self-hosted payment gateway · every action here is recorded in the audit log.</p></footer>
</body>
</html>
`.text;
}

function account(user: SignedInUser, csrf: string): SafeHtml {
  return html`<div class="account">
<span class="who">${user.email} <span class="role">(${user.role === 'admin' ? 'administrator' : 'read-only member'})</span></span>
<form class="inline" method="post" action="/dashboard/sign-out">${csrfField({ csrf })}<button type="submit">Sign out</button></form>
</div>`;
}

function navigation(c: LayoutContext): SafeHtml {
  const entries = [...(c.nav ?? [])].sort((a, b) => a.order - b.order);
  const link = (label: string, href: string) => html`<li><a href="${href}"${c.currentPath === href ? html` aria-current="page"` : null}>${label}</a></li>`;
  const operatorLinks = entries.filter((e) => e.scope === 'operator').map((e) => link(e.label, e.path));
  const projectLinks = c.project
    ? entries
        .filter((e) => e.scope === 'project' && (e.kinds === undefined || e.kinds.includes(c.project!.kind)))
        .map((e) => link(e.label, navHref(e, c.project!.id)))
    : [];
  return html`<div class="navs">
<nav aria-label="Main"><ul>${operatorLinks}</ul></nav>
${switcher(c)}
${c.project ? html`<nav aria-label="Project sections"><ul>${projectLinks}</ul></nav>` : null}
</div>`;
}

function switcher(c: LayoutContext): SafeHtml | null {
  const listed = c.projects ?? [];
  // The selected project is always an option, also beyond the switcher's first page.
  const projects = c.project && !listed.some((p) => p.id === c.project!.id) ? [c.project, ...listed] : listed;
  if (projects.length === 0) return null;
  return html`<form class="switcher" method="get" action="/dashboard/switch">
<label for="project-switch">Project</label>
<select id="project-switch" name="project" data-autosubmit>
${c.project ? null : html`<option value="" selected>Choose a project</option>`}
${projects.map((p) => html`<option value="${p.id}"${c.project?.id === p.id ? html` selected` : null}>${p.name} (${p.kind})</option>`)}
</select>
<button type="submit" class="js-hidden">Go</button>
</form>`;
}

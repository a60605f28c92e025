import type {} from '@gw/plugin-sandbox/contract';
import { PROJECT_KINDS, html, type ProjectKind } from '@gw/kernel';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import { actionButton, badge, csrfField, nextPageLink, onceField, pageOf, secretOnce, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardRequest } from '../web/dashboard-page.js';

/** Longest project name (as the CLI). */
const NAME_MAX = 128;

/**
 * Projects of the user's operator: the list (cursor-paginated), creation with a fixed kind (the
 * API secret shown once), the one-action sandbox project (secret and PAT shown once), and a
 * project's page with suspend and resume.
 */
export const projectsPage = definePage({
  id: 'projects',
  dependsOn: ['sandbox'],
  nav: [{ label: 'Projects', scope: 'operator', path: '/dashboard/projects', order: 10 }],
  routes: ({ tenancyProjects: projects, sandboxProjects: sandbox }) => [
    {
      method: 'GET',
      path: '/dashboard/projects',
      summary: "The operator's projects; forms to create one or a sandbox project.",
      cli: ['project list'],
      render: async (req) => {
        const cursor = pageOf(req);
        const list = await projects.listForOperator(req.user.operatorId, cursor);
        return page('Projects', html`<h1>Projects</h1>
${table('Your projects', ['Name', 'Kind', 'Status', 'Id'], list.map((p) => [html`<a href="/dashboard/projects/${p.id}">${p.name}</a>`, p.kind, badge(p.status), html`<code>${p.id}</code>`]), 'No projects yet. Create one below.')}
${nextPageLink(req, '/dashboard/projects', list, cursor.limit)}
${req.user.role === 'admin' ? createForms(req) : html`<p class="note">You are a read-only member: creating projects is for administrators.</p>`}`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects',
      summary: 'Create a project of a fixed kind; its API secret is shown once.',
      cli: ['project create'],
      once: true,
      handle: async (req) => {
        const name = req.form.text('name', 'Project name', { max: NAME_MAX });
        const kind = req.form.choice<ProjectKind>('kind', 'Kind', PROJECT_KINDS);
        const { project, credentials } = await projects.create({ name, kind, operator: req.user.operatorId }, req.actor);
        return page(`Project ${project.name} created`, html`<h1>Project created</h1>
<p>The ${project.kind} project <strong>${project.name}</strong> was created with its API key.</p>
${credentialFacts(project)}
${secretOnce('api-secret', 'API secret', credentials.api_secret)}
<p><a href="/dashboard/projects/${project.id}">Go to the project</a></p>`, 201);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/sandbox',
      summary: 'Create a sandbox project in one action: project, testnet keys, API secret and PAT (both shown once).',
      cli: ['sandbox create'],
      once: true,
      handle: async (req) => {
        const name = req.form.text('name', 'Sandbox project name', { max: NAME_MAX });
        const created = await sandbox.provision({ name, operator: req.user.operatorId }, req.actor);
        return page(`Sandbox project ${created.project.name} created`, html`<h1>Sandbox project created</h1>
<p>The sandbox project <strong>${created.project.name}</strong> is ready: a generated testnet key for each of ${created.wallets.length} chains, an API key, and a personal access token with scope <code>${created.pat.scopes.join(' ')}</code> for the simulation endpoints.</p>
${credentialFacts(created.project)}
${secretOnce('api-secret', 'API secret (sk_sandbox_)', created.api_key.api_secret)}
${secretOnce('pat', 'Personal access token (sandbox:simulate)', created.pat.token)}
<p>Sign requests to <code>/api/v1/sandbox</code> as docs/sandbox.md shows. <a href="/dashboard/projects/${created.project.id}">Go to the project</a></p>`, 201);
      },
    },
    {
      method: 'GET',
      path: '/dashboard/projects/:projectId',
      summary: "A project's page: kind, status, suspend and resume.",
      render: async (req) => {
        const p = req.project!;
        return page(p.name, html`<h1>${p.name}</h1>
<dl class="facts"><dt>Project id</dt><dd><code>${p.id}</code></dd><dt>Kind</dt><dd>${p.kind} (fixed)</dd><dt>Status</dt><dd>${badge(p.status)}</dd><dt>Created</dt><dd>${p.created_at_iso}</dd></dl>
${req.user.role === 'admin' ? statusAction(req, p) : null}`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/suspend',
      summary: 'Suspend the project: its requests get 403 project_suspended.',
      cli: ['project suspend'],
      handle: async (req) => {
        await projects.suspend(req.project!.id, req.actor);
        return redirect(`/dashboard/projects/${req.project!.id}`, 'The project is suspended: its requests get 403 project_suspended.');
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/resume',
      summary: 'Resume a suspended project.',
      cli: ['project resume'],
      handle: async (req) => {
        await projects.resume(req.project!.id, req.actor);
        return redirect(`/dashboard/projects/${req.project!.id}`, 'The project is active again.');
      },
    },
  ],
});

function createForms(req: DashboardRequest) {
  return html`<h2 id="new-sandbox">New sandbox project</h2>
<p>One action: a project with generated testnet keys for every chain, an API secret and a token for the simulation endpoints.</p>
<form method="post" action="/dashboard/sandbox">${csrfField(req)}${onceField()}
<label for="sandbox-name">Name</label>
<input id="sandbox-name" name="name" type="text" required maxlength="${NAME_MAX}">
<button type="submit">Create sandbox project</button>
</form>
<h2 id="new-project">New project</h2>
<form method="post" action="/dashboard/projects">${csrfField(req)}${onceField()}
<label for="project-name">Name</label>
<input id="project-name" name="name" type="text" required maxlength="${NAME_MAX}">
<fieldset><legend>Kind (fixed for ever)</legend>
${PROJECT_KINDS.map((k, i) => html`<label class="choice"><input type="radio" name="kind" value="${k}"${i === 0 ? html` checked` : null}> ${k}</label>`)}
</fieldset>
<button type="submit">Create project</button>
</form>`;
}

function credentialFacts(project: ProjectView) {
  return html`<dl class="facts"><dt>Project id (X-Project-Id)</dt><dd><code id="project-id">${project.id}</code></dd><dt>Kind</dt><dd>${project.kind}</dd></dl>`;
}

function statusAction(req: DashboardRequest, p: ProjectView) {
  return p.status === 'active'
    ? actionButton(req, `/dashboard/projects/${p.id}/suspend`, 'Suspend project', { confirm: `Suspend ${p.name}? Its API requests will be refused until resumed.`, danger: true })
    : actionButton(req, `/dashboard/projects/${p.id}/resume`, 'Resume project');
}

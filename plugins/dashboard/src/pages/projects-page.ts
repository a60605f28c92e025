import { PROJECT_KINDS, html, type ProjectKind, type SafeHtml } from '@gw/kernel';
import type { ProjectView } from '@gw/plugin-tenancy/contract';
import { actionButton, badge, csrfField, nextPageLink, onceField, pageOf, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardRequest } from '../web/dashboard-page.js';
import { secretsPage } from '../web/secrets-page.js';
import { credentialFacts, PROJECT_NAME_MAX as NAME_MAX } from '../web/project-facts.js';
import { PAGE_SECTIONS, renderSections } from '../web/section-point.js';

/**
 * Projects of the user's operator: the list (cursor-paginated), creation with a fixed kind (the
 * API secret shown once) after the forms other plugins contribute (`new-project` sections: the
 * sandbox's one-action sandbox project), and a project's page with suspend and resume.
 */
export const projectsPage = definePage({
  nav: { label: 'Projects', scope: 'operator', path: '/dashboard/projects', order: 10 },
  summary: "The operator's projects; forms to create one or a sandbox project.",
  cli: ['project list'],
  render: async (req) => {
    const cursor = pageOf(req);
    const list = await req.services.tenancyProjects.listForOperator(req.user.operatorId, cursor);
    return page(
      'Projects',
      html`<h1>Projects</h1>
${table(
  'Your projects',
  ['Name', 'Kind', 'Status', 'Id'],
  list.map((p) => [html`<a href="/dashboard/projects/${p.id}">${p.name}</a>`, p.kind, badge(p.status), html`<code>${p.id}</code>`]),
  'No projects yet. Create one below.',
)}
${nextPageLink(req, '/dashboard/projects', list, cursor.limit)}
${
  req.user.role === 'admin'
    ? createForms(
        req,
        await renderSections(
          req.services.extensions.of(PAGE_SECTIONS).map((c) => c.item),
          'new-project',
          req,
        ),
      )
    : html`<p class="note">You are a read-only member: creating projects is for administrators.</p>`
}`,
    );
  },
  views: {
    '/:projectId': {
      summary: "A project's page: kind, status, suspend and resume.",
      render: async (req) => {
        const p = req.project!;
        return page(
          p.name,
          html`<h1>${p.name}</h1>
<dl class="facts"><dt>Project id</dt><dd><code>${p.id}</code></dd><dt>Kind</dt><dd>${p.kind} (fixed)</dd><dt>Status</dt><dd>${badge(p.status)}</dd><dt>Created</dt><dd>${p.created_at_iso}</dd></dl>
${req.user.role === 'admin' ? statusAction(req, p) : null}`,
        );
      },
    },
  },
  actions: {
    '': {
      summary: 'Create a project of a fixed kind; its API secret is shown once.',
      cli: ['project create'],
      once: true,
      handle: async (req) => {
        const name = req.form.text('name', 'Project name', { max: NAME_MAX });
        const kind = req.form.choice<ProjectKind>('kind', 'Kind', PROJECT_KINDS);
        const { project, credentials } = await req.services.tenancyProjects.create({ name, kind, operator: req.user.operatorId }, req.actor);
        return secretsPage(
          `Project ${project.name} created`,
          'Project created',
          html`<p>The ${project.kind} project <strong>${project.name}</strong> was created with its API key.</p>
${credentialFacts(project)}`,
          [{ id: 'api-secret', label: 'API secret', secret: credentials.api_secret }],
          html`<p><a href="/dashboard/projects/${project.id}">Go to the project</a></p>`,
        );
      },
    },
    '/:projectId/suspend': {
      summary: 'Suspend the project: its requests get 403 project_suspended.',
      cli: ['project suspend'],
      handle: async (req) => {
        await req.services.tenancyProjects.suspend(req.project!.id, req.actor);
        return redirect(`/dashboard/projects/${req.project!.id}`, 'The project is suspended: its requests get 403 project_suspended.');
      },
    },
    '/:projectId/resume': {
      summary: 'Resume a suspended project.',
      cli: ['project resume'],
      handle: async (req) => {
        await req.services.tenancyProjects.resume(req.project!.id, req.actor);
        return redirect(`/dashboard/projects/${req.project!.id}`, 'The project is active again.');
      },
    },
  },
});

function createForms(req: DashboardRequest, sections: readonly SafeHtml[]) {
  return html`${sections.map(
    (section) => html`${section}
`,
  )}<h2 id="new-project">New project</h2>
<form method="post" action="/dashboard/projects">${csrfField(req)}${onceField()}
<label for="project-name">Name</label>
<input id="project-name" name="name" type="text" required maxlength="${NAME_MAX}">
<fieldset><legend>Kind (fixed for ever)</legend>
${PROJECT_KINDS.map((k, i) => html`<label class="choice"><input type="radio" name="kind" value="${k}"${i === 0 ? html` checked` : null}> ${k}</label>`)}
</fieldset>
<button type="submit">Create project</button>
</form>`;
}

function statusAction(req: DashboardRequest, p: ProjectView) {
  return p.status === 'active'
    ? actionButton(req, `/dashboard/projects/${p.id}/suspend`, 'Suspend project', {
        confirm: `Suspend ${p.name}? Its API requests will be refused until resumed.`,
        danger: true,
      })
    : actionButton(req, `/dashboard/projects/${p.id}/resume`, 'Resume project');
}

import { html } from '@gw/kernel';
import {
  credentialFacts,
  csrfField,
  definePage,
  onceField,
  type PageSection,
  type PageServices,
  PROJECT_NAME_MAX,
  secretsPage,
} from '@gw/plugin-dashboard/contract';

/** What the form's action reads (ADR 0011). */
export const NEW_SANDBOX_DEPS = ['sandboxProjects'] as const;
type Services = PageServices<typeof NEW_SANDBOX_DEPS>;

/** The projects page's form for the one-action sandbox project (administrators). */
export const newSandboxSection: PageSection<Services> = {
  page: 'new-project',
  id: 'new-sandbox',
  order: 10,
  render: async (req) => html`<h2 id="new-sandbox">New sandbox project</h2>
<p>One action: a project with generated testnet keys for every chain, an API secret and a token for the simulation endpoints.</p>
<form method="post" action="/dashboard/sandbox">${csrfField(req)}${onceField()}
<label for="sandbox-name">Name</label>
<input id="sandbox-name" name="name" type="text" required maxlength="${PROJECT_NAME_MAX}">
<button type="submit">Create sandbox project</button>
</form>`,
};

/** The form's action: project, testnet keys, API secret and PAT, the secrets shown once. */
export const newSandboxPage = definePage<Services>({
  id: 'new-sandbox',
  routes: ({ sandboxProjects: sandbox }) => [
    {
      method: 'POST',
      path: '/dashboard/sandbox',
      summary: 'Create a sandbox project in one action: project, testnet keys, API secret and PAT (both shown once).',
      cli: ['sandbox create'],
      once: true,
      handle: async (req) => {
        const name = req.form.text('name', 'Sandbox project name', { max: PROJECT_NAME_MAX });
        const created = await sandbox.provision({ name, operator: req.user.operatorId }, req.actor);
        return secretsPage(
          `Sandbox project ${created.project.name} created`,
          'Sandbox project created',
          html`<p>The sandbox project <strong>${created.project.name}</strong> is ready: a generated testnet key for each of ${created.wallets.length} chains, an API key, and a personal access token with scope <code>${created.pat.scopes.join(' ')}</code> for the simulation endpoints.</p>
${credentialFacts(created.project)}`,
          [
            { id: 'api-secret', label: 'API secret (sk_sandbox_)', secret: created.api_key.api_secret },
            { id: 'pat', label: 'Personal access token (sandbox:simulate)', secret: created.pat.token },
          ],
          html`<p>Sign requests to <code>/api/v1/sandbox</code> as docs/sandbox.md shows. <a href="/dashboard/projects/${created.project.id}">Go to the project</a></p>`,
        );
      },
    },
  ],
});

import { html } from '@gw/kernel';
import { dashboardErrors } from '../errors.js';
import { actionButton, table } from '../web/components.js';
import { definePage, page, redirect, type DashboardRequest } from '../web/dashboard-page.js';
import { when } from '../web/filters.js';

const base = (req: DashboardRequest) => `/dashboard/projects/${req.project!.id}/sandbox`;

function requireSandbox(req: DashboardRequest): void {
  if (req.project!.kind !== 'sandbox') throw dashboardErrors.invalid_form({ message: 'This is not a sandbox project. Nothing was changed.' });
}

/** A sandbox project's own page: its generated keys, reset (soft purge) and delete. */
export const sandboxPage = definePage({
  id: 'sandbox',
  dependsOn: ['sandbox'],
  nav: [{ label: 'Sandbox', scope: 'project', path: '/sandbox', order: 60 }],
  routes: (cradle) => [
    {
      method: 'GET',
      path: '/dashboard/projects/:projectId/sandbox',
      cli: ['sandbox wallets'],
      summary: "A sandbox project's generated account keys per chain; reset and delete.",
      render: async (req) => {
        if (req.project!.kind !== 'sandbox') return page('Not a sandbox project', html`<h1>Not a sandbox project</h1><p>${req.project!.name} is a ${req.project!.kind} project: simulations, reset and generated keys exist only for sandbox projects.</p>`);
        const wallets = await cradle.sandboxProjects.wallets(req.project!.id);
        return page(`Sandbox ${req.project!.name}`, html`<h1>Sandbox ${req.project!.name}</h1>
${table('Generated testnet account keys', ['Chain', 'Account key', 'Bound'], wallets.map((w) => [w.chain, html`<code class="wrap">${w.xpub}</code>`, when(w.bound_at_iso)]), 'No generated keys.')}
${req.user.role === 'admin'
  ? html`<h2>Reset or delete</h2>
<p>Reset removes the invoices, transactions, webhook events and address pool; the project, keys, bindings and tokens stay. Delete removes everything, API key and token included.</p>
${actionButton(req, `${base(req)}/reset`, 'Reset the sandbox', { confirm: 'Remove every invoice and webhook event of this sandbox?', danger: true })}
${actionButton(req, `${base(req)}/delete`, 'Delete the sandbox project', { confirm: 'Delete this sandbox project and everything of it? This cannot be undone.', danger: true })}`
  : null}`);
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/sandbox/reset',
      cli: ['sandbox reset'],
      summary: 'Soft-purge the sandbox: invoices, transactions, webhook events and the address pool go.',
      handle: async (req) => {
        requireSandbox(req);
        await cradle.sandboxProjects.reset(req.project!.id, req.actor);
        return redirect(base(req), 'The sandbox is reset.');
      },
    },
    {
      method: 'POST',
      path: '/dashboard/projects/:projectId/sandbox/delete',
      cli: ['sandbox delete'],
      summary: 'Delete the sandbox project and everything of it.',
      handle: async (req) => {
        requireSandbox(req);
        await cradle.sandboxProjects.delete(req.project!.id, req.actor);
        return redirect('/dashboard/projects', `The sandbox project ${req.project!.name} is deleted.`);
      },
    },
  ],
});
